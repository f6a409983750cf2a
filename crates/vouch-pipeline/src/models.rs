//! The models of a pipeline, built from `Models`: each alias's client, one limit of
//! simultaneous requests per provider, retries and timeouts from `vouch-llm`.

use std::sync::Arc;
use std::time::Duration;

use vouch_llm::{
    Anthropic, DEFAULT_CONCURRENCY, HttpProvider, Limits, ModelClient, OpenAiCompatible,
    RetryPolicy, ScriptedChat, Structured, Transport,
};

use crate::config::{Provider, RunConfig};
use crate::error::RunError;

/// The models of a run, by alias.
pub type Models = std::collections::BTreeMap<String, Arc<dyn ModelClient>>;

/// Builds every model of `config`. A key that is not set is an error here, before any turn.
pub fn build(config: &RunConfig) -> Result<Models, RunError> {
    let limits = Limits::default();
    let mut models = Models::new();
    for m in &config.models {
        let label = format!("model `{}`", m.alias);
        let client: Arc<dyn ModelClient> = match m.provider {
            Provider::Scripted => {
                let script = m.script.as_deref().ok_or_else(|| {
                    RunError::Model(format!("{label}: a scripted model needs a `Script`"))
                })?;
                Arc::new(
                    ScriptedChat::load(script)
                        .map_err(|e| RunError::Model(format!("{label}: {e}")))?,
                )
            }
            Provider::OpenAi | Provider::Anthropic => {
                let openai = m.provider == Provider::OpenAi;
                let provider = if openai {
                    HttpProvider::OpenAi
                } else {
                    HttpProvider::Anthropic
                };
                // `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` stand for the provider's own
                // endpoint, as its own clients read them.
                let env_base = std::env::var(if openai {
                    "OPENAI_BASE_URL"
                } else {
                    "ANTHROPIC_BASE_URL"
                })
                .ok()
                .filter(|v| !v.trim().is_empty());
                let base = match (&m.endpoint, env_base) {
                    (Some(e), Some(env)) if e.trim_end_matches('/') == provider.default_base() => {
                        env
                    }
                    (Some(e), _) => e.clone(),
                    (None, Some(env)) => env,
                    (None, None) => provider.default_base().to_owned(),
                };
                let key = provider
                    .key(&base, m.api_key_env.as_deref())
                    .map_err(|why| RunError::Model(format!("{label}: {why}")))?;
                let transport = Transport::new(
                    label.clone(),
                    Duration::from_secs(300),
                    RetryPolicy::default(),
                    limits.of(&base, DEFAULT_CONCURRENCY),
                )
                .map_err(|e| RunError::Model(format!("{label}: {e}")))?;
                if openai {
                    Arc::new(OpenAiCompatible::new(
                        &base,
                        key,
                        m.model.clone(),
                        Structured::Off,
                        transport,
                    ))
                } else {
                    Arc::new(Anthropic::new(&base, key, m.model.clone(), transport))
                }
            }
        };
        models.insert(m.alias.clone(), client);
    }
    // `FalloverModels`: each model with the models that stand in for it.
    for m in config.models.iter().filter(|m| !m.fallover.is_empty()) {
        let mut chain = Vec::new();
        for alias in std::iter::once(&m.alias).chain(&m.fallover) {
            let client = models.get(alias).cloned().ok_or_else(|| {
                RunError::Model(format!(
                    "model `{}` falls over to `{alias}`, which is not declared",
                    m.alias
                ))
            })?;
            chain.push((client, config.model(alias).and_then(|c| c.model.clone())));
        }
        models.insert(
            m.alias.clone(),
            Arc::new(crate::fallover::Fallover { chain }),
        );
    }
    Ok(models)
}
