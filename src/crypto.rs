//! Encryption at rest of integration credentials: XChaCha20-Poly1305 under the server's secret key.
//! A stored value is `nonce (24 bytes) || ciphertext`; a random nonce per value.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::{bail, Context};
use base64::Engine;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::XChaCha20Poly1305;

const NONCE_BYTES: usize = 24;
/// Name of the generated key file inside the data directory.
pub const SECRET_KEY_FILE: &str = "secret-key";

/// Encrypts and decrypts provider credentials.
#[derive(Clone)]
pub struct CredentialCipher {
    cipher: XChaCha20Poly1305,
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
        Ok(Self { cipher: XChaCha20Poly1305::new_from_slice(&key).expect("32-byte key") })
    }

    /// A cipher with a fresh random key (tests, one-off tools).
    pub fn random() -> Self {
        Self { cipher: XChaCha20Poly1305::new(&XChaCha20Poly1305::generate_key(&mut OsRng)) }
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
        Ok(Self { cipher: XChaCha20Poly1305::new(&key) })
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
    fn keys_must_be_32_bytes_of_base64() {
        assert!(CredentialCipher::from_base64_key("not base64!").is_err());
        assert!(CredentialCipher::from_base64_key("c2hvcnQ=").is_err());
        let encoded = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let cipher = CredentialCipher::from_base64_key(&encoded).unwrap();
        let again = CredentialCipher::from_base64_key(&encoded).unwrap();
        assert_eq!(again.decrypt(&cipher.encrypt(b"x")).unwrap(), b"x");
    }
}
