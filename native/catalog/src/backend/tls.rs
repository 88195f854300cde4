//! TLS for the PostgreSQL backend: the rustls client configuration of each `sslmode`
//! ([`crate::url::SslMode`]) and the CA certificates it trusts (a PEM file, `sslrootcert`, or
//! the system's roots). `prefer` and `require` encrypt without verifying the server;
//! `verify-ca` verifies the certificate chain; `verify-full` the chain and the host name.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tickreel::{Error, Result};

use crate::url::SslMode;

/// The largest CA file read (`sslrootcert`): a bundle of every public CA is about 250 KiB.
const MAX_CA_FILE: u64 = 4 << 20;

/// The rustls configuration of `mode` (`None` for `disable`), trusting `root_cert` or the
/// system's roots when it verifies.
pub(crate) fn client_config(
    mode: SslMode,
    root_cert: Option<&Path>,
) -> Result<Option<ClientConfig>> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = match mode {
        SslMode::Disable => return Ok(None),
        SslMode::Prefer | SslMode::Require => Arc::new(Unverified(provider.clone())),
        SslMode::VerifyCa | SslMode::VerifyFull => {
            let roots = Arc::new(roots(root_cert)?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                .build()
                .map_err(|e| Error::invalid(format!("catalog: the CA certificates: {e}")))?;
            if mode == SslMode::VerifyFull {
                webpki
            } else {
                Arc::new(ChainOnly(webpki))
            }
        }
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::invalid(format!("catalog: TLS configuration: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(config))
}

/// The CA certificates of `file` (PEM), or the system's roots.
fn roots(file: Option<&Path>) -> Result<RootCertStore> {
    let mut store = RootCertStore::empty();
    match file {
        Some(file) => {
            let shown = file.display();
            // a file the operator named in the URL, read once when connecting (the storage rule
            // of clippy.toml is about the recordings the library reads and writes)
            #[allow(clippy::disallowed_methods, clippy::disallowed_types)]
            let mut f = std::fs::File::open(file)
                .map_err(|e| Error::invalid(format!("catalog: sslrootcert {shown}: {e}")))?;
            let mut pem = Vec::new();
            f.by_ref()
                .take(MAX_CA_FILE + 1)
                .read_to_end(&mut pem)
                .map_err(|e| Error::invalid(format!("catalog: sslrootcert {shown}: {e}")))?;
            if pem.len() as u64 > MAX_CA_FILE {
                return Err(Error::invalid(format!(
                    "catalog: sslrootcert {shown} is larger than {MAX_CA_FILE} bytes: not a CA file"
                )));
            }
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert = cert.map_err(|e| {
                    Error::invalid(format!("catalog: sslrootcert {shown}: not PEM: {e}"))
                })?;
                store.add(cert).map_err(|e| {
                    Error::invalid(format!(
                        "catalog: sslrootcert {shown}: a bad certificate: {e}"
                    ))
                })?;
            }
            if store.is_empty() {
                return Err(Error::invalid(format!(
                    "catalog: sslrootcert {shown} holds no PEM certificate"
                )));
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            let (added, _) = store.add_parsable_certificates(found.certs);
            if added == 0 {
                return Err(Error::invalid(
                    "catalog: sslmode verifies the server but the system has no CA certificates: \
                     give the server's CA with sslrootcert=FILE (or install ca-certificates)",
                ));
            }
        }
    }
    Ok(store)
}

/// `verify-ca`: the chain must lead to a trusted CA; the name it gives is not checked.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        // webpki checks the chain first and the name last: a wrong name means a good chain
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require`: any certificate is accepted (the handshake's signatures are still
/// checked, so the session is encrypted to whoever holds the certificate's key).
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
