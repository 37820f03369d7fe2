//! The crypto provider behind HTTPS connections to MCP servers.
//!
//! reqwest is built with rustls and no provider of its own choosing (the
//! default one, aws-lc-rs, costs every cold build a cmake run), and would
//! panic building a client with none installed. So before the first
//! client, ring is installed as the process default, unless the
//! application installed its own first: then theirs is used.

use std::sync::Once;

/// Makes sure a rustls crypto provider is installed for the process.
pub(super) fn ensure_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // An `Err` means a provider is already installed, which is all
        // that is needed.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_provider_is_installed_and_installing_again_is_harmless() {
        super::ensure_crypto_provider();
        super::ensure_crypto_provider();
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        // A client with TLS builds (it would panic with no provider).
        reqwest::Client::builder()
            .build()
            .expect("a TLS client builds");
    }
}
