use super::*;

fn refused(policy: &OutboundPolicy, address: &str) -> Option<String> {
    policy.check(address.parse().unwrap()).err().map(|refused| refused.to_string())
}

#[test]
fn non_global_addresses_are_refused_by_default_and_each_refusal_names_its_range() {
    let policy = OutboundPolicy::default();
    for (address, range) in [
        ("127.0.0.1", "loopback range 127.0.0.0/8"),
        ("::1", "loopback range ::1/128"),
        ("10.0.0.5", "private range 10.0.0.0/8"),
        ("172.31.255.1", "private range 172.16.0.0/12"),
        ("192.168.1.1", "private range 192.168.0.0/16"),
        ("169.254.169.254", "link-local (cloud metadata) range 169.254.0.0/16"),
        ("100.64.0.1", "shared address space (CGNAT) range 100.64.0.0/10"),
        ("0.0.0.0", "unspecified range 0.0.0.0/32"),
        ("0.1.2.3", "\"this network\" range 0.0.0.0/8"),
        ("::", "unspecified range ::/128"),
        ("fd00::1", "unique local (private) range fc00::/7"),
        ("fe80::1", "link-local range fe80::/10"),
        ("ff02::1", "multicast range ff00::/8"),
        ("224.0.0.1", "multicast range 224.0.0.0/4"),
        ("255.255.255.255", "reserved range 240.0.0.0/4"),
        ("198.18.0.1", "benchmarking range 198.18.0.0/15"),
        ("2001:db8::1", "documentation range 2001:db8::/32"),
        // IPv6 forms of refused IPv4 addresses are judged by the IPv4 address.
        ("::ffff:10.0.0.1", "private range 10.0.0.0/8"),
        ("::ffff:127.0.0.1", "loopback range 127.0.0.0/8"),
        ("::ffff:169.254.169.254", "link-local (cloud metadata) range 169.254.0.0/16"),
        ("64:ff9b::a00:1", "private range 10.0.0.0/8"),
        ("2002:7f00:1::", "loopback range 127.0.0.0/8"),
    ] {
        let refusal = refused(&policy, address).unwrap_or_else(|| panic!("{address} passed"));
        assert_eq!(refusal, format!("destination {address} is in the {range}; allow it with HERALD_OUTBOUND_ALLOW"));
    }
}

#[test]
fn public_addresses_pass() {
    let policy = OutboundPolicy::default();
    for address in
        ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]
    {
        assert_eq!(refused(&policy, address), None, "{address}");
    }
}

#[test]
fn the_allow_list_takes_ranges_addresses_and_host_names() {
    let policy: OutboundPolicy = " 127.0.0.0/8, ::1/128,10.1.2.3 ,,fd12::/16, Fake.Local.".parse().unwrap();
    assert_eq!(refused(&policy, "127.0.0.1"), None);
    assert_eq!(refused(&policy, "::ffff:127.0.0.1"), None, "the mapped form of an allowed address");
    assert_eq!(refused(&policy, "::1"), None);
    assert_eq!(refused(&policy, "10.1.2.3"), None);
    assert!(refused(&policy, "10.1.2.4").is_some(), "a single address allows only itself");
    assert_eq!(refused(&policy, "fd12::1"), None);
    assert!(refused(&policy, "fd13::1").is_some());
    assert!(refused(&policy, "169.254.169.254").is_some());
    assert_eq!(policy.allowed_hosts, ["fake.local"]);

    // A range is taken by its network, whatever host bits it was written with.
    let loose: OutboundPolicy = "192.168.1.77/24".parse().unwrap();
    assert_eq!(refused(&loose, "192.168.1.3"), None);
    assert_eq!("".parse::<OutboundPolicy>().unwrap(), OutboundPolicy::default());
}

#[test]
fn an_invalid_entry_is_named() {
    for entry in ["10.0.0.0/33", "10.0.0", "http://x.example", "a..b", "-bad.example", "[::1]", "*.example.com"] {
        let error = format!("127.0.0.0/8,{entry}").parse::<OutboundPolicy>().unwrap_err();
        assert_eq!(error, InvalidAllowEntry(entry.to_owned()));
        assert!(error.to_string().contains(&format!("`{entry}`")), "{error}");
    }
}

#[test]
fn development_mode_allows_loopback_only() {
    let policy = OutboundPolicy::default().allowing_loopback();
    assert_eq!(refused(&policy, "127.0.0.2"), None);
    assert_eq!(refused(&policy, "::1"), None);
    assert!(refused(&policy, "10.0.0.1").is_some());
    assert!(refused(&policy, "169.254.169.254").is_some());
}

#[test]
fn literal_ip_urls_are_checked_and_names_wait_for_resolution() {
    let policy = OutboundPolicy::default();
    let check = |url: &str| policy.check_url(&url.parse().unwrap()).map_err(|refused| refused.to_string());
    assert!(check("http://169.254.169.254/latest/meta-data").unwrap_err().contains("169.254.169.254"));
    assert!(check("http://[::1]:8080/hook").unwrap_err().contains("destination ::1 is in the loopback range"));
    assert!(check("http://[::ffff:10.0.0.1]/").is_err());
    // The URL parser reads the decimal and hex forms of an address as the address.
    assert!(check("http://2130706433/").is_err());
    assert!(check("http://0x7f.1/").is_err());
    assert_eq!(check("https://hooks.slack.com/services/x"), Ok(()));
}

#[tokio::test]
async fn resolution_keeps_only_allowed_addresses_and_names_the_host_it_refuses() {
    let strict = OutboundPolicy::default();
    match strict.resolve("localhost", 25).await {
        Err(Unreachable::Refused(refused)) => {
            let text = refused.to_string();
            assert!(text.starts_with("destination localhost (") && text.contains("loopback range"), "{text}");
        }
        other => panic!("localhost resolved to {other:?}"),
    }
    let by_name: OutboundPolicy = "LOCALHOST".parse().unwrap();
    assert!(by_name.resolve("localhost", 25).await.unwrap().iter().all(|address| address.port() == 25));
    let loopback = OutboundPolicy::default().allowing_loopback();
    assert_eq!(loopback.resolve("127.0.0.1", 80).await.unwrap(), ["127.0.0.1:80".parse().unwrap()]);
    assert!(matches!(strict.resolve("[::1]", 80).await, Err(Unreachable::Refused(_))));
    assert!(matches!(strict.resolve("no-such-host.invalid", 80).await, Err(Unreachable::Lookup(_))));
}
