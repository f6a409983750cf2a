//! `FalloverModels`: a model that, when a request fails (after its own retries), asks the
//! next model of its list with the same request — the model id of each is its own.

use std::sync::Arc;

use vouch_llm::{BoxFuture, ChatReply, ChatRequest, Error, ModelClient, Reply, Request};

/// A model and the models that stand in for it, in order.
#[derive(Debug)]
pub(crate) struct Fallover {
    /// The first is the model itself; each with its own model id.
    pub(crate) chain: Vec<(Arc<dyn ModelClient>, Option<String>)>,
}

impl ModelClient for Fallover {
    fn kind(&self) -> &'static str {
        self.chain.first().map_or("fallover", |(c, _)| c.kind())
    }

    fn default_model(&self) -> Option<&str> {
        self.chain.first().and_then(|(c, _)| c.default_model())
    }

    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Reply, Error>> {
        Box::pin(async move {
            let mut last = None;
            for (client, _) in &self.chain {
                match client.complete(request).await {
                    Ok(r) => return Ok(r),
                    Err(e) => last = Some(e),
                }
            }
            Err(last.unwrap_or_else(|| Error::Config("no model to ask".into())))
        })
    }

    fn skip_steps(&self, agent: &str, steps: usize) {
        for (client, _) in &self.chain {
            client.skip_steps(agent, steps);
        }
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatReply, Error>> {
        Box::pin(async move {
            let mut last = None;
            for (i, (client, model)) in self.chain.iter().enumerate() {
                let attempt = if i == 0 {
                    client.chat(request).await
                } else {
                    let mut other = request.clone();
                    other.model.clone_from(model);
                    client.chat(&other).await
                };
                match attempt {
                    Ok(r) => return Ok(r),
                    Err(e) => last = Some(e),
                }
            }
            Err(last.unwrap_or_else(|| Error::Config("no model to ask".into())))
        })
    }
}
