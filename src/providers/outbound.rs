//! Where Herald may connect: the one rule every outbound client follows (provider and webhook HTTP, the
//! HTTP/2 push clients, custom steps, SMTP, the SNS certificate fetch). API clients supply the URLs Herald
//! calls (subscribers' chat webhooks, integrations' `baseUrl` and webhook URLs, custom-step URLs, SMTP
//! hosts), so without a rule anyone with an API key could make Herald reach its own network: the cloud
//! metadata service at 169.254.169.254, a database on 10.0.0.5, an admin port on 127.0.0.1.
//!
//! By default every address that is not globally routable is refused: loopback, private (RFC 1918,
//! `fc00::/7`), link-local (`169.254.0.0/16`, `fe80::/10`), unspecified, shared address space (CGNAT,
//! `100.64.0.0/10`), documentation, benchmarking, multicast and reserved ranges, and IPv6 forms that
//! embed one of those IPv4 addresses (`::ffff:127.0.0.1`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).
//! `HERALD_OUTBOUND_ALLOW` names what an operator allows anyway: CIDR ranges, single addresses and exact
//! host names (`127.0.0.0/8,::1/128,mail.internal`).
//!
//! The rule is checked on the address each connection goes to, after resolution, so a name that
//! resolves to a refused address (or is re-pointed there between a check and the connection: DNS
//! rebinding) never gets a byte: the HTTP clients resolve through [`OutboundPolicy::resolve`] (reqwest's
//! `dns_resolver`) and connect only to the addresses it returned; URLs whose host is an IP literal, which
//! reqwest connects to without resolving, are checked with [`OutboundPolicy::check_url`] before the request
//! is sent; SMTP resolves and checks first and connects to the checked address. Redirects are never
//! followed (no provider needs them, and a redirect is a way to a host nobody checked), and proxies from
//! the environment are not used: through a proxy the address checked would be the proxy's, not the
//! destination's.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::sync::{Arc, LazyLock};

use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{redirect, Client, ClientBuilder, Url};

/// The setting that allows refused destinations, named in every refusal.
pub const SETTING: &str = "HERALD_OUTBOUND_ALLOW";

/// What outbound connections may reach: every globally routable address, plus what the operator allows.
/// Built once at start and shared (`Arc`) by every outbound client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutboundPolicy {
    allowed_ranges: Vec<IpNet>,
    /// Lowercase, without a trailing dot.
    allowed_hosts: Vec<String>,
}

/// An entry of `HERALD_OUTBOUND_ALLOW` that is neither a range, an address nor a host name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{SETTING}: `{0}` is not a CIDR range (10.0.0.0/8, ::1/128), an IP address or a host name")]
pub struct InvalidAllowEntry(String);

/// A destination the policy refuses. Its `Display` is the execution detail a message gets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Refused {
    /// The host name the address was resolved from, when it was one.
    host: Option<String>,
    address: IpAddr,
    range: &'static NonGlobal,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let NonGlobal { net, name } = self.range;
        match &self.host {
            Some(host) => write!(f, "destination {host} ({}) is in the {name} range {net}", self.address)?,
            None => write!(f, "destination {} is in the {name} range {net}", self.address)?,
        }
        write!(f, "; allow it with {SETTING}")
    }
}

/// Why a host could not be connected to.
#[derive(Debug)]
pub enum Unreachable {
    /// Every address it resolved to is refused.
    Refused(Refused),
    /// It did not resolve.
    Lookup(std::io::Error),
}

impl FromStr for OutboundPolicy {
    type Err = InvalidAllowEntry;

    /// A comma-separated list of CIDR ranges, IP addresses and host names; blanks around entries and empty
    /// entries are ignored.
    fn from_str(list: &str) -> Result<Self, Self::Err> {
        let mut policy = Self::default();
        for entry in list.split(',').map(str::trim).filter(|entry| !entry.is_empty()) {
            if let Ok(net) = entry.parse::<IpNet>() {
                policy.allowed_ranges.push(net.trunc());
            } else if let Ok(address) = entry.parse::<IpAddr>() {
                policy.allowed_ranges.push(IpNet::from(address));
            } else if is_host_name(entry) {
                policy.allowed_hosts.push(entry.trim_end_matches('.').to_ascii_lowercase());
            } else {
                return Err(InvalidAllowEntry(entry.to_owned()));
            }
        }
        Ok(policy)
    }
}

impl OutboundPolicy {
    /// Also allows loopback (`127.0.0.0/8`, `::1/128`): the zero-config development mode, where the
    /// receivers a developer tries Herald with run on the same machine.
    pub fn allowing_loopback(mut self) -> Self {
        self.allowed_ranges.extend(["127.0.0.0/8", "::1/128"].map(|net| net.parse::<IpNet>().expect("a valid range")));
        self
    }

    /// Whether connecting to `address` is allowed; the refusal names its range.
    pub fn check(&self, address: IpAddr) -> Result<(), Refused> {
        if self.allows(address) {
            return Ok(());
        }
        match non_global_range(address) {
            Some(range) => Err(Refused { host: None, address, range }),
            None => Ok(()),
        }
    }

    /// Checks a URL whose host is an IP address (reqwest connects to those without resolving); a host
    /// name is checked when it is resolved.
    pub fn check_url(&self, url: &Url) -> Result<(), Refused> {
        match url.host() {
            Some(url::Host::Ipv4(address)) => self.check(address.into()),
            Some(url::Host::Ipv6(address)) => self.check(address.into()),
            _ => Ok(()),
        }
    }

    /// The addresses of `host` that may be connected to (all of them when the operator allows the name).
    /// Connect only to these: checking one lookup and connecting after another would let the name's owner
    /// change the answer in between.
    pub async fn resolve(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, Unreachable> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let addresses: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
            Ok(address) => vec![SocketAddr::new(address, port)],
            Err(_) => tokio::net::lookup_host((bare, port)).await.map_err(Unreachable::Lookup)?.collect(),
        };
        if self.allowed_hosts.contains(&bare.trim_end_matches('.').to_ascii_lowercase()) {
            return Ok(addresses);
        }
        let mut refusal = None;
        let allowed: Vec<SocketAddr> = addresses
            .into_iter()
            .filter(|address| match self.check(address.ip()) {
                Ok(()) => true,
                Err(refused) => {
                    refusal.get_or_insert(refused);
                    false
                }
            })
            .collect();
        match refusal {
            Some(mut refused) if allowed.is_empty() => {
                refused.host = (bare.parse::<IpAddr>().is_err()).then(|| bare.to_owned());
                Err(Unreachable::Refused(refused))
            }
            _ if allowed.is_empty() => {
                Err(Unreachable::Lookup(std::io::Error::other(format!("{host} resolved to no address"))))
            }
            _ => Ok(allowed),
        }
    }

    /// An HTTP client builder that follows this policy: resolves through it, never follows a redirect and
    /// ignores proxy settings. Callers add their timeouts; every request still needs
    /// [`check_url`](Self::check_url) for IP-literal hosts.
    pub fn http_client(self: &Arc<Self>) -> ClientBuilder {
        Client::builder()
            .dns_resolver(Arc::new(CheckedResolver(self.clone())))
            .redirect(redirect::Policy::none())
            .no_proxy()
    }

    fn allows(&self, address: IpAddr) -> bool {
        let canonical = address.to_canonical();
        self.allowed_ranges.iter().any(|net| net.contains(&address) || net.contains(&canonical))
    }
}

/// The refusal somewhere in `error`'s chain of causes: how a refused connection comes back out of a client
/// (reqwest wraps the resolver's error several times).
pub fn refusal_in<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a Refused> {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(refused) = error.downcast_ref::<Refused>() {
            return Some(refused);
        }
        cause = error.source();
    }
    None
}

/// reqwest's resolver: [`OutboundPolicy::resolve`], so a client connects only to checked addresses.
struct CheckedResolver(Arc<OutboundPolicy>);

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.0.clone();
        Box::pin(async move {
            // Port 0: reqwest puts the URL's port (or the scheme's) on each address.
            match policy.resolve(name.as_str(), 0).await {
                Ok(addresses) => Ok(Box::new(addresses.into_iter()) as Addrs),
                Err(Unreachable::Refused(refused)) => Err(refused.into()),
                Err(Unreachable::Lookup(error)) => Err(error.into()),
            }
        })
    }
}

/// A range of addresses that is not globally routable, and what it is.
#[derive(Debug, PartialEq, Eq)]
struct NonGlobal {
    net: IpNet,
    name: &'static str,
}

/// IANA's special-purpose ranges that are not globally reachable (RFC 6890 and its updates), plus
/// multicast and IPv4's reserved block. IPv6's IPv4-mapped, NAT64 and 6to4 ranges are not here: they are
/// judged by the IPv4 address they carry ([`embedded_v4`]).
const NON_GLOBAL: [(&str, &str); 29] = [
    ("0.0.0.0/32", "unspecified"),
    ("0.0.0.0/8", "\"this network\""),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "shared address space (CGNAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local (cloud metadata)"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation"),
    ("192.88.99.0/24", "deprecated 6to4 relay anycast"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "benchmarking"),
    ("198.51.100.0/24", "documentation"),
    ("203.0.113.0/24", "documentation"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "deprecated IPv4-compatible"),
    ("64:ff9b:1::/48", "local-use NAT64"),
    ("100::/64", "discard-only"),
    ("2001::/32", "Teredo"),
    ("2001:2::/48", "benchmarking"),
    ("2001:db8::/32", "documentation"),
    ("3fff::/20", "documentation"),
    ("fc00::/7", "unique local (private)"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "deprecated site-local"),
    ("ff00::/8", "multicast"),
];

/// [`NON_GLOBAL`], parsed once; the most specific range of an address comes first (`0.0.0.0/32` before
/// `0.0.0.0/8`, `::1/128` before `::/96`).
static NON_GLOBAL_RANGES: LazyLock<Vec<NonGlobal>> = LazyLock::new(|| {
    NON_GLOBAL.iter().map(|(net, name)| NonGlobal { net: net.parse().expect("a valid range"), name }).collect()
});

/// The non-global range `address` is in, if any; an IPv6 address carrying an IPv4 one is judged by it.
fn non_global_range(address: IpAddr) -> Option<&'static NonGlobal> {
    match address {
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => non_global_range(IpAddr::V4(v4)),
            None => NON_GLOBAL_RANGES.iter().find(|range| range.net.contains(&address)),
        },
        IpAddr::V4(_) => NON_GLOBAL_RANGES.iter().find(|range| range.net.contains(&address)),
    }
}

/// The IPv4 address an IPv6 one stands for: IPv4-mapped (`::ffff:a.b.c.d`), NAT64's well-known prefix
/// (`64:ff9b::a.b.c.d`, which a NAT64 gateway turns into a connection to a.b.c.d) and 6to4
/// (`2002:aabb:ccdd::/48`).
fn embedded_v4(address: Ipv6Addr) -> Option<Ipv4Addr> {
    let [a, b, c, d, e, f, g, h] = address.segments();
    let from = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match (a, b, c, d, e, f) {
        (0, 0, 0, 0, 0, 0xffff) => Some(from(g, h)),
        (0x64, 0xff9b, 0, 0, 0, 0) => Some(from(g, h)),
        (0x2002, ..) => Some(from(b, c)),
        _ => None,
    }
}

/// A DNS host name: dot-separated labels of letters, digits and hyphens (an underscore too, which some
/// internal names carry), none empty or longer than 63.
fn is_host_name(entry: &str) -> bool {
    let name = entry.strip_suffix('.').unwrap_or(entry);
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        })
        // All digits and dots is a mistyped address (`10.0.0`), not a name.
        && !name.bytes().all(|byte| byte.is_ascii_digit() || byte == b'.')
}

#[cfg(test)]
mod tests;
