//! TLS for `https://` and `wss://` endpoints: rustls (no OpenSSL), trusting the platform's
//! root certificates plus, optionally, the certificates of one extra CA file.
//!
//! The platform roots come from `rustls-native-certs`, which reads the system store and honours
//! `SSL_CERT_FILE` / `SSL_CERT_DIR` when they are set. The extra CA file is an explicit option
//! ([`super::ConnectOptions::ca_file`]) rather than an environment variable, so a test can
//! trust its own CA without touching the process environment; the CLI can map a flag or a
//! variable to it. One [`rustls::ClientConfig`] serves both the HTTP requests and the
//! websocket, so both trust the same roots.

use std::path::Path;
use std::sync::Arc;
use std::sync::OnceLock;

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::error::DriveError;

/// The platform's root certificates, read once per process.
fn platform_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            tracing::debug!(%error, "reading the platform's root certificates");
        }
        tracing::debug!(count = found.certs.len(), "platform root certificates");
        found.certs
    })
}

/// A rustls client configuration trusting the platform roots and the certificates in
/// `ca_file` (PEM), speaking HTTP/1.1 (what a websocket upgrade needs).
pub(crate) fn client_config(
    ca_file: Option<&Path>,
) -> Result<Arc<rustls::ClientConfig>, DriveError> {
    let mut roots = RootCertStore::empty();
    let (added, ignored) = roots.add_parsable_certificates(platform_roots().iter().cloned());
    tracing::debug!(added, ignored, "trusted platform roots");
    if let Some(path) = ca_file {
        let invalid =
            |why: String| DriveError::InvalidInput(format!("CA file {}: {why}", path.display()));
        let certificates = CertificateDer::pem_file_iter(path)
            .map_err(|e| invalid(format!("cannot read it ({e})")))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(format!("not valid PEM ({e})")))?;
        if certificates.is_empty() {
            return Err(invalid(
                "no certificate in it (expected PEM `-----BEGIN CERTIFICATE-----` blocks)"
                    .to_owned(),
            ));
        }
        for certificate in certificates {
            roots
                .add(certificate)
                .map_err(|e| invalid(format!("a certificate cannot be trusted ({e})")))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| DriveError::InvalidInput(format!("TLS setup: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_that_is_missing_or_holds_no_certificate_is_named() {
        let message = client_config(Some(Path::new("/nonexistent/ca.pem")))
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("CA file /nonexistent/ca.pem: cannot read it"),
            "{message}"
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.pem");
        std::fs::write(&path, "not a certificate\n").unwrap();
        let message = client_config(Some(&path)).unwrap_err().to_string();
        assert!(message.contains("no certificate in it"), "{message}");
    }

    #[test]
    fn without_a_ca_file_the_platform_roots_are_enough() {
        let config = client_config(None).unwrap();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }
}
