//! What vouch knows of the HTTP providers it speaks to: their own endpoints, where their keys
//! are by default, and when a missing key is a problem (their own endpoints need one; a local
//! server speaking their format does not).

use crate::Error;

/// A provider reached over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpProvider {
    /// OpenAI's chat completions, or any server speaking them.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

impl HttpProvider {
    /// Returns the provider's own base URL.
    pub fn default_base(self) -> &'static str {
        match self {
            HttpProvider::OpenAi => "https://api.openai.com/v1",
            HttpProvider::Anthropic => "https://api.anthropic.com",
        }
    }

    /// Returns the environment variable its key is read from when none is named.
    pub fn default_key_env(self) -> &'static str {
        match self {
            HttpProvider::OpenAi => "OPENAI_API_KEY",
            HttpProvider::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// Returns the key for a client of `base`, read from `var` (the default variable when
    /// `None`): `Ok(None)` for a server that needs none, `Err` naming the variable when the
    /// provider's own endpoint would be asked without one.
    pub fn key(self, base: &str, var: Option<&str>) -> Result<Option<String>, Error> {
        let var = var.unwrap_or(self.default_key_env());
        let key = std::env::var(var).ok().filter(|k| !k.is_empty());
        let own_host = self
            .default_base()
            .trim_start_matches("https://")
            .split('/')
            .next()
            .unwrap_or_default();
        if key.is_none() && base.contains(own_host) {
            return Err(Error::MissingKey {
                var: var.to_owned(),
            });
        }
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_providers_own_endpoints_need_a_key() {
        let unset = Some("VOUCH_TEST_KEY_THAT_IS_NOT_SET");
        assert_eq!(
            HttpProvider::OpenAi
                .key("https://api.openai.com/v1", unset)
                .map_err(|e| e.to_string()),
            Err("the environment variable VOUCH_TEST_KEY_THAT_IS_NOT_SET is not set".into())
        );
        assert_eq!(
            HttpProvider::OpenAi
                .key("http://127.0.0.1:11434/v1", unset)
                .map_err(|e| e.to_string()),
            Ok(None)
        );
        assert!(
            HttpProvider::Anthropic
                .key("https://api.anthropic.com", unset)
                .is_err()
        );
    }
}
