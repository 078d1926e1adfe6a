//! Encryption at rest of integration credentials (and API keys): XChaCha20-Poly1305 under the server's
//! secret key. A stored value is `nonce (24 bytes) || ciphertext`; a random nonce per value. Other
//! secrets the server needs (the inbox session tokens' signing key) are derived from the same key, so
//! every process sharing the key file or `HERALD_SECRET_KEY` agrees on them.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::{bail, Context};
use base64::Engine;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::XChaCha20Poly1305;
use hmac::{Hmac, Mac};
use sha2::Sha256;

const NONCE_BYTES: usize = 24;
/// Name of the generated key file inside the data directory.
pub const SECRET_KEY_FILE: &str = "secret-key";

/// Encrypts and decrypts provider credentials.
#[derive(Clone)]
pub struct CredentialCipher {
    cipher: XChaCha20Poly1305,
    /// The secret key itself, for [`derive_key`](Self::derive_key).
    secret: [u8; 32],
}

impl std::fmt::Debug for CredentialCipher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("CredentialCipher(..)")
    }
}

impl CredentialCipher {
    /// A cipher from a base64-encoded 32-byte key.
    pub fn from_base64_key(encoded: &str) -> anyhow::Result<Self> {
        let key = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .context("the secret key is not valid base64")?;
        if key.len() != 32 {
            bail!("the secret key must be 32 bytes (base64 of 32 random bytes), not {}", key.len());
        }
        Ok(Self::with_key(key.try_into().expect("checked to be 32 bytes")))
    }

    /// A cipher with a fresh random key (tests, one-off tools).
    pub fn random() -> Self {
        Self::with_key(XChaCha20Poly1305::generate_key(&mut OsRng).into())
    }

    /// The key from `HERALD_SECRET_KEY` when given, else from the data directory's key file,
    /// generated (mode 0600) on first use.
    pub fn load(configured: Option<&str>, data_dir: &Path) -> anyhow::Result<Self> {
        if let Some(encoded) = configured {
            return Self::from_base64_key(encoded);
        }
        let path = data_dir.join(SECRET_KEY_FILE);
        if let Ok(encoded) = std::fs::read_to_string(&path) {
            return Self::from_base64_key(&encoded).with_context(|| format!("reading {}", path.display()));
        }
        std::fs::create_dir_all(data_dir)?;
        let key = XChaCha20Poly1305::generate_key(&mut OsRng);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .with_context(|| format!("creating {}", path.display()))?;
        writeln!(file, "{}", base64::engine::general_purpose::STANDARD.encode(key))?;
        tracing::warn!(file = %path.display(), "generated a new secret key for integration credentials; keep it with the database");
        Ok(Self::with_key(key.into()))
    }

    fn with_key(secret: [u8; 32]) -> Self {
        Self { cipher: XChaCha20Poly1305::new(&secret.into()), secret }
    }

    /// A key for `purpose`, derived from the secret key (HMAC-SHA256 keyed with it over the purpose's
    /// label): independent of the encryption key and of other purposes' keys.
    pub fn derive_key(&self, purpose: &str) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret).expect("HMAC takes keys of any length");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// Encrypts `plaintext` under a fresh nonce.
    pub fn encrypt(&self, plaintext: &[u8]) -> Vec<u8> {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let ciphertext = self.cipher.encrypt(&nonce, plaintext).expect("encryption of an in-memory buffer cannot fail");
        let mut stored = Vec::with_capacity(NONCE_BYTES + ciphertext.len());
        stored.extend_from_slice(&nonce);
        stored.extend_from_slice(&ciphertext);
        stored
    }

    /// Decrypts a value made by [`encrypt`](Self::encrypt); fails on a wrong key or tampering.
    pub fn decrypt(&self, stored: &[u8]) -> anyhow::Result<Vec<u8>> {
        if stored.len() < NONCE_BYTES {
            bail!("encrypted value too short");
        }
        let (nonce, ciphertext) = stored.split_at(NONCE_BYTES);
        self.cipher
            .decrypt(nonce.into(), ciphertext)
            .map_err(|_| anyhow::anyhow!("credentials cannot be decrypted with the configured secret key"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_uses_a_fresh_nonce_each_time() {
        let cipher = CredentialCipher::random();
        let first = cipher.encrypt(b"{\"apiKey\":\"k\"}");
        let second = cipher.encrypt(b"{\"apiKey\":\"k\"}");
        assert_ne!(first, second);
        assert_eq!(cipher.decrypt(&first).unwrap(), b"{\"apiKey\":\"k\"}");
    }

    #[test]
    fn another_key_or_a_flipped_bit_is_refused() {
        let cipher = CredentialCipher::random();
        let mut stored = cipher.encrypt(b"secret");
        assert!(CredentialCipher::random().decrypt(&stored).is_err());
        *stored.last_mut().unwrap() ^= 1;
        assert!(cipher.decrypt(&stored).is_err());
    }

    #[test]
    fn derived_keys_depend_on_the_secret_and_the_purpose() {
        let encoded = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let cipher = CredentialCipher::from_base64_key(&encoded).unwrap();
        let again = CredentialCipher::from_base64_key(&encoded).unwrap();
        assert_eq!(cipher.derive_key("a"), again.derive_key("a"));
        assert_ne!(cipher.derive_key("a"), cipher.derive_key("b"));
        assert_ne!(cipher.derive_key("a"), CredentialCipher::random().derive_key("a"));
    }

    #[test]
    fn keys_must_be_32_bytes_of_base64() {
        assert!(CredentialCipher::from_base64_key("not base64!").is_err());
        assert!(CredentialCipher::from_base64_key("c2hvcnQ=").is_err());
        let encoded = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let cipher = CredentialCipher::from_base64_key(&encoded).unwrap();
        let again = CredentialCipher::from_base64_key(&encoded).unwrap();
        assert_eq!(again.decrypt(&cipher.encrypt(b"x")).unwrap(), b"x");
    }
}
