//! `Models` and an agent's `Model`, in fuseraft's spelling (`ModelId`, `ApiKeyEnvVar`, the
//! provider inferred from the model id) and vouch's earlier one (`Model`, `ApiKeyEnv`).

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;
use vouch_gate::yaml::{Location, Map, Node, Reader};

/// Which provider a model is reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Any OpenAI-compatible chat-completions server (OpenAI, xAI, Google's and Mistral's
    /// compatible endpoints, DeepSeek, Ollama, Open WebUI, vLLM, ...).
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
    /// Replies from a script file, per agent.
    Scripted,
}

/// One model a run uses: an entry of `Models`, or an agent's inline `Model`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelConfig {
    /// The alias agents name it by (an inline model's is `<agent>:model`).
    pub alias: String,
    /// `Provider`, written or inferred.
    pub provider: Provider,
    /// `ModelId`: the provider's model id.
    pub model: Option<String>,
    /// `Endpoint`: the server's base URL; the vendor's own when absent.
    pub endpoint: Option<String>,
    /// `ApiKeyEnvVar`: the environment variable holding the key.
    pub api_key_env: Option<String>,
    /// `MaxTokens` of one reply.
    pub max_tokens: u32,
    /// `Temperature`.
    pub temperature: Option<f32>,
    /// `ReasoningEffort` (OpenAI-compatible servers).
    pub reasoning_effort: Option<String>,
    /// `FalloverModels`: aliases tried in order when this model fails.
    pub fallover: Vec<String>,
    /// `Script` (scripted): the replies file, resolved against the configuration's folder.
    pub script: Option<PathBuf>,
}

/// A vendor a model id names, and where its OpenAI-compatible API is.
struct Vendor {
    name: &'static str,
    provider: Provider,
    endpoint: &'static str,
    key_env: Option<&'static str>,
}

/// The vendor of a model id, by its prefix (fuseraft's table, docs/models.md there).
fn vendor_of(id: &str) -> Option<Vendor> {
    let id = id.trim().to_ascii_lowercase();
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| id.starts_with(p));
    let v = |name, provider, endpoint, key_env| {
        Some(Vendor {
            name,
            provider,
            endpoint,
            key_env,
        })
    };
    if starts(&["gpt-", "o1", "o3", "o4", "chatgpt-"]) {
        v(
            "openai",
            Provider::OpenAi,
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
        )
    } else if starts(&["grok-"]) {
        v(
            "xai",
            Provider::OpenAi,
            "https://api.x.ai/v1",
            Some("XAI_API_KEY"),
        )
    } else if starts(&["claude-"]) {
        v(
            "anthropic",
            Provider::Anthropic,
            "https://api.anthropic.com",
            Some("ANTHROPIC_API_KEY"),
        )
    } else if starts(&["gemini-", "learnlm-"]) {
        v(
            "google",
            Provider::OpenAi,
            "https://generativelanguage.googleapis.com/v1beta/openai",
            Some("GOOGLE_AI_API_KEY"),
        )
    } else if starts(&[
        "mistral-",
        "mixtral-",
        "codestral-",
        "pixtral-",
        "ministral-",
    ]) {
        v(
            "mistral",
            Provider::OpenAi,
            "https://api.mistral.ai/v1",
            Some("MISTRAL_API_KEY"),
        )
    } else if starts(&["deepseek-"]) {
        v(
            "deepseek",
            Provider::OpenAi,
            "https://api.deepseek.com/v1",
            Some("DEEPSEEK_API_KEY"),
        )
    } else if starts(&["llama", "phi", "qwen", "gemma", "codellama", "smollm"]) || id.contains(':')
    {
        v(
            "ollama",
            Provider::OpenAi,
            "http://localhost:11434/v1",
            None,
        )
    } else {
        None
    }
}

/// A provider as written: its client, and its vendor's default endpoint and key variable.
fn provider_named(
    name: &str,
) -> Result<(Provider, Option<&'static str>, Option<&'static str>), String> {
    Ok(match name.trim().to_ascii_lowercase().as_str() {
        "openai" => (Provider::OpenAi, None, None),
        "anthropic" => (Provider::Anthropic, None, None),
        "scripted" => (Provider::Scripted, None, None),
        "xai" | "grok" => (
            Provider::OpenAi,
            Some("https://api.x.ai/v1"),
            Some("XAI_API_KEY"),
        ),
        "google" | "gemini" => (
            Provider::OpenAi,
            Some("https://generativelanguage.googleapis.com/v1beta/openai"),
            Some("GOOGLE_AI_API_KEY"),
        ),
        "mistral" => (
            Provider::OpenAi,
            Some("https://api.mistral.ai/v1"),
            Some("MISTRAL_API_KEY"),
        ),
        "deepseek" => (
            Provider::OpenAi,
            Some("https://api.deepseek.com/v1"),
            Some("DEEPSEEK_API_KEY"),
        ),
        "ollama" => (Provider::OpenAi, Some("http://localhost:11434/v1"), None),
        "azure" | "azureopenai" => {
            return Err("fuseraft's `azure` provider is not supported by vouch: Azure OpenAI needs its deployment URL and `api-key` header".into());
        }
        other => return Err(format!("unknown provider `{other}`")),
    })
}

/// The providers a configuration may name, for hints.
const PROVIDERS: &str =
    "openai (any compatible server), anthropic, xai, google, mistral, deepseek, ollama, scripted";

/// The keys of a model entry.
const MODEL_KEYS: &[&str] = &[
    "ModelId",
    "Model",
    "Provider",
    "Endpoint",
    "ApiKeyEnvVar",
    "ApiKeyEnv",
    "ApiKeyEnvVars",
    "ApiKey",
    "ApiKeys",
    "MaxTokens",
    "MaxContextTokens",
    "Temperature",
    "ReasoningEffort",
    "FalloverModels",
    "FalloverOn",
    "Script",
];

/// Reads `Models`: each alias and its model.
pub(super) fn models(
    r: &mut Reader,
    node: &Spanned<Node>,
    path: &str,
    dir: &Path,
) -> Vec<ModelConfig> {
    let Some(all) = r.map(node, path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (alias, value) in all.entries() {
        let p = format!("{path}.{}", alias.value);
        if let Some(mut m) = r.map(value, &p) {
            if let Some(model) = entry(r, &mut m, &p, &alias.value, dir, None) {
                out.push(model);
            }
            r.unknown_keys(&m, MODEL_KEYS);
        }
    }
    out
}

/// An agent's `Model`: an alias of `Models`, a plain model id, or a mapping whose `ModelId` is
/// either, with overrides. Returns the alias the agent uses, and the model to add when the
/// agent's is its own.
pub(super) fn agent_model(
    r: &mut Reader,
    node: &Spanned<Node>,
    path: &str,
    agent: &str,
    declared: &[ModelConfig],
    dir: &Path,
) -> Option<(String, Option<ModelConfig>)> {
    let own = format!("{agent}:model");
    match &node.value {
        Node::Map(_) => {
            let mut m = r.map(node, path)?;
            let id = m
                .entries()
                .iter()
                .find(|(k, _)| {
                    k.value.eq_ignore_ascii_case("ModelId") || k.value.eq_ignore_ascii_case("Model")
                })
                .and_then(|(_, v)| v.value.scalar());
            let base = id
                .as_deref()
                .and_then(|id| declared.iter().find(|d| d.alias == id));
            let model = entry(r, &mut m, path, &own, dir, base);
            r.unknown_keys(&m, MODEL_KEYS);
            model.map(|model| (own, Some(model)))
        }
        _ => {
            let name = r.string(node, path)?;
            if declared.iter().any(|d| d.alias == name) {
                return Some((name, None));
            }
            // A plain model id: its vendor from the prefix.
            match vendor_of(&name) {
                Some(vendor) => Some((
                    own.clone(),
                    Some(ModelConfig {
                        alias: own,
                        provider: vendor.provider,
                        model: Some(name),
                        endpoint: Some(vendor.endpoint.to_owned()),
                        api_key_env: vendor.key_env.map(str::to_owned),
                        max_tokens: 4096,
                        temperature: None,
                        reasoning_effort: None,
                        fallover: Vec::new(),
                        script: None,
                    }),
                )),
                None => {
                    // An alias not declared: reported once the whole file is read.
                    Some((name, None))
                }
            }
        }
    }
}

/// Reads one model's keys from `m`; `base` is the declared model an agent's mapping refines.
fn entry(
    r: &mut Reader,
    m: &mut Map<'_>,
    p: &str,
    alias: &str,
    dir: &Path,
    base: Option<&ModelConfig>,
) -> Option<ModelConfig> {
    let text = |key: &str, r: &mut Reader, m: &mut Map<'_>| {
        m.get(key).and_then(|(n, pp)| r.string(n, &pp))
    };
    let id = text("ModelId", r, m).or_else(|| text("Model", r, m));
    let provider_key = m.get("Provider").is_some();
    let provider_written = m.get("Provider").and_then(|(n, pp)| {
        let name = r.string(n, &pp)?;
        match provider_named(&name) {
            Ok(found) => Some(found),
            Err(why) => {
                r.error(
                    Location::of(n),
                    &pp,
                    why,
                    Some(format!("providers: {PROVIDERS}")),
                );
                None
            }
        }
    });
    let endpoint = text("Endpoint", r, m);
    let key_env = text("ApiKeyEnvVar", r, m).or_else(|| text("ApiKeyEnv", r, m));
    if let Some((n, pp)) = m.get("ApiKeyEnvVars") {
        // Several keys of one provider, rotated by fuseraft: vouch reads the first.
        let vars = r.strings(n, &pp);
        if vars.len() > 1 {
            r.warn(
                Location::of(n),
                &pp,
                "vouch uses the first of `ApiKeyEnvVars`; it does not rotate keys",
                None,
            );
        }
    }
    for key in ["ApiKey", "ApiKeys"] {
        if let Some((n, pp)) = m.get(key) {
            r.error(
                Location::of(n),
                &pp,
                format!("`{key}` writes a secret into the configuration, and vouch does not read one from there"),
                Some("put the key in an environment variable and name it in `ApiKeyEnvVar`".into()),
            );
        }
    }
    let key_env = key_env.or_else(|| {
        m.entries()
            .iter()
            .find(|(k, _)| k.value.eq_ignore_ascii_case("ApiKeyEnvVars"))
            .and_then(|(_, v)| match &v.value {
                Node::Seq(items) => items.first().and_then(|i| i.value.scalar()),
                other => other.scalar(),
            })
    });
    let max_tokens = m.get("MaxTokens").and_then(|(n, pp)| r.positive(n, &pp));
    if let Some((n, pp)) = m.get("MaxContextTokens") {
        let _ = r.positive(n, &pp);
    }
    let temperature = m.get("Temperature").and_then(|(n, pp)| {
        let t = n
            .value
            .scalar()
            .and_then(|s| s.parse::<f32>().ok())
            .filter(|t| (0.0..=2.0).contains(t));
        if t.is_none() {
            r.error(
                Location::of(n),
                &pp,
                format!(
                    "`Temperature` is a number from 0 to 2, found {}",
                    n.value.described()
                ),
                None,
            );
        }
        t
    });
    let reasoning_effort = text("ReasoningEffort", r, m);
    let fallover: Vec<String> = m
        .get("FalloverModels")
        .map(|(n, pp)| r.strings(n, &pp).into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();
    if let Some((n, pp)) = m.get("FalloverOn") {
        for (when, at) in r.strings(n, &pp) {
            if !["error", "ratelimit", "timeout", "servererror", "any"]
                .contains(&when.to_ascii_lowercase().as_str())
            {
                r.error(
                    at,
                    &pp,
                    format!("unknown fallover condition `{when}`"),
                    Some("vouch falls over on any failed request; write `Any`".into()),
                );
            }
        }
    }
    let script = text("Script", r, m).map(|s| dir.join(s));
    // The provider: written, else the base's, else inferred from the id.
    let inferred = id.as_deref().and_then(vendor_of);
    let (provider, default_endpoint, default_key) = match (provider_written, base, &inferred) {
        (Some(found), _, _) => found,
        (None, Some(b), _) => (b.provider, None, None),
        (None, None, Some(v)) => (v.provider, Some(v.endpoint), v.key_env),
        (None, None, None) if script.is_some() => (Provider::Scripted, None, None),
        // A `Provider` that was wrong is reported already.
        (None, None, None) if provider_key => return None,
        (None, None, None) => {
            if endpoint.is_some() {
                (Provider::OpenAi, None, None)
            } else {
                r.error(
                    m.location,
                    p,
                    match &id {
                        Some(id) => format!(
                            "cannot tell the provider of `{id}`: write `Provider` or an `Endpoint`"
                        ),
                        None => {
                            "a model needs a `ModelId` (or a `Provider` and `Script`)".to_owned()
                        }
                    },
                    Some(format!("providers: {PROVIDERS}")),
                );
                return None;
            }
        }
    };
    // An inferred vendor's endpoint only where the provider is its own.
    let vendor_endpoint = default_endpoint.or_else(|| {
        inferred
            .as_ref()
            .filter(|v| v.provider == provider && provider_written.is_none() && base.is_none())
            .map(|v| v.endpoint)
    });
    let vendor_key = default_key.or_else(|| {
        inferred
            .as_ref()
            .filter(|v| v.provider == provider && provider_written.is_none() && base.is_none())
            .and_then(|v| v.key_env)
    });
    if provider == Provider::Scripted && script.is_none() && base.is_none() {
        r.error(
            m.location,
            p,
            "a scripted model needs a `Script`: the file of its replies",
            None,
        );
    }
    if provider == Provider::Anthropic && reasoning_effort.is_some() {
        r.error(
            m.location,
            p,
            "`ReasoningEffort` is a setting of OpenAI-compatible servers; Anthropic's API has none",
            None,
        );
    }
    let _ = inferred.as_ref().map(|v| v.name);
    let inherit = |f: fn(&ModelConfig) -> Option<String>| base.and_then(f);
    Some(ModelConfig {
        alias: alias.to_owned(),
        provider,
        // An agent's mapping naming an alias keeps the alias's model id.
        model: match base {
            Some(b) => b.model.clone(),
            None => id,
        },
        endpoint: endpoint
            .or_else(|| inherit(|b| b.endpoint.clone()))
            .or_else(|| vendor_endpoint.map(str::to_owned)),
        api_key_env: key_env
            .or_else(|| inherit(|b| b.api_key_env.clone()))
            .or_else(|| vendor_key.map(str::to_owned)),
        max_tokens: max_tokens.or(base.map(|b| b.max_tokens)).unwrap_or(4096),
        temperature: temperature.or(base.and_then(|b| b.temperature)),
        reasoning_effort: reasoning_effort.or_else(|| inherit(|b| b.reasoning_effort.clone())),
        fallover: if fallover.is_empty() {
            base.map(|b| b.fallover.clone()).unwrap_or_default()
        } else {
            fallover
        },
        script: script.or_else(|| base.and_then(|b| b.script.clone())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendors_are_inferred_from_the_model_id() {
        let v = |id| vendor_of(id).map(|v| v.name);
        assert_eq!(v("grok-4.3"), Some("xai"));
        assert_eq!(v("claude-haiku-4-5-20251001"), Some("anthropic"));
        assert_eq!(v("gpt-4o-mini"), Some("openai"));
        assert_eq!(v("gemini-2.5-pro"), Some("google"));
        assert_eq!(v("codestral-latest"), Some("mistral"));
        assert_eq!(v("deepseek-chat"), Some("deepseek"));
        assert_eq!(v("qwen2.5-coder:7b"), Some("ollama"));
        assert_eq!(v("YOUR_MODEL_ID"), None);
    }

    #[test]
    fn azure_is_refused_by_name() {
        let err = provider_named("azure").err().unwrap_or_default();
        assert!(err.contains("not supported by vouch"), "{err}");
    }
}
