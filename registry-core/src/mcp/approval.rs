//! Asking the client: when a call needs approval, the MCP client's user
//! answers it through elicitation (see
//! [`McpServer::with_client_approvals`](super::McpServer::with_client_approvals)).
//!
//! - A session of a revision before 2026-07-28 whose client declared form
//!   elicitation gets an `elicitation/create` request while the call
//!   waits, on the call's own stream.
//! - A 2026-07-28 request cannot be answered by a server-to-client request
//!   (the revision has none), so the call ends with an input-required
//!   result (SEP-2322) carrying the same question; the client retries the
//!   call with the answer in `inputResponses`.
//! - A client that cannot be asked is refused, as with no approver.
//!
//! The question is a form with one field, `decision`: `once`, `always` or
//! `deny`. Anything but an accepted `once` or `always` is a denial,
//! including a malformed or missing answer and no answer in time.
//!
//! A retried call's answer is matched to the question by a key digested
//! from the call's tool and arguments, so an answer given for one call
//! never approves a different one. The key needs no secret: the client is
//! the approver, so an answer it sends unasked is an answer it could have
//! given when asked.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitResult, InputRequest, InputRequests};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::replicas::Sessions;
use crate::permission::{Approval, ApprovalRequest, Approver, JudgeFuture};

/// Who answers this connection's asks, for the request being served.
enum Asking {
    /// The client cannot be asked: every ask is a denial.
    Nobody,
    /// A pre-2026-07-28 session's client: asked while the call waits.
    Peer {
        peer: rmcp::Peer<RoleServer>,
        timeout: Duration,
        relay: Option<Relay>,
    },
    /// A 2026-07-28 request: answered by the client's retry. `answers`
    /// came with the request; `asked` collects the questions it still
    /// needs answered.
    Rounds {
        answers: BTreeMap<String, Approval>,
        asked: BTreeMap<String, ApprovalRequest>,
    },
}

/// Where a session's answers arrive when they reach another replica:
/// its relay, and the session's id.
#[derive(Clone)]
pub(crate) struct Relay {
    pub(crate) sessions: Arc<Sessions>,
    pub(crate) session: String,
}

/// The approver of one MCP connection: the client's user, reached as the
/// request being served allows.
pub(crate) struct ClientApprover {
    asking: Mutex<Asking>,
}

impl ClientApprover {
    pub(crate) fn new() -> Self {
        ClientApprover {
            asking: Mutex::new(Asking::Nobody),
        }
    }

    fn set(&self, asking: Asking) {
        *self.asking.lock().unwrap_or_else(PoisonError::into_inner) = asking;
    }

    /// Asks through `peer` (a legacy session's client that declared form
    /// elicitation), waiting at most `timeout` for each answer, which may
    /// come through `relay` when the client posts it to another replica.
    pub(crate) fn ask_peer(
        &self,
        peer: rmcp::Peer<RoleServer>,
        timeout: Duration,
        relay: Option<Relay>,
    ) {
        self.set(Asking::Peer {
            peer,
            timeout,
            relay,
        });
    }

    /// Nobody can be asked for this request.
    pub(crate) fn ask_nobody(&self) {
        self.set(Asking::Nobody);
    }

    /// Answers asks from `responses` (a 2026-07-28 retry's
    /// `inputResponses`, if any) and collects the rest as questions.
    pub(crate) fn ask_in_rounds(&self, responses: Option<&BTreeMap<String, Value>>) {
        let answers = responses
            .into_iter()
            .flatten()
            .map(|(key, value)| (key.clone(), read_answer(value)))
            .collect();
        self.set(Asking::Rounds {
            answers,
            asked: BTreeMap::new(),
        });
    }

    /// The questions this request left unanswered, as the input requests
    /// of an input-required result (empty when none).
    pub(crate) fn take_questions(&self) -> InputRequests {
        let mut asking = self.asking.lock().unwrap_or_else(PoisonError::into_inner);
        let Asking::Rounds { asked, .. } = &mut *asking else {
            return InputRequests::new();
        };
        std::mem::take(asked)
            .into_iter()
            .filter_map(|(key, request)| {
                let wire = json!({ "method": "elicitation/create", "params": form(&request) });
                match serde_json::from_value::<InputRequest>(wire) {
                    Ok(question) => Some((key, question)),
                    Err(err) => {
                        tracing::error!(%err, "approval question not representable; call denied");
                        None
                    }
                }
            })
            .collect()
    }
}

impl Approver for ClientApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
        Box::pin(async move {
            let peer = {
                let mut asking = self.asking.lock().unwrap_or_else(PoisonError::into_inner);
                match &mut *asking {
                    Asking::Nobody => {
                        return denied(
                            "this call needs approval and the client cannot be asked (it declared no form elicitation)",
                        );
                    }
                    Asking::Rounds { answers, asked } => {
                        let key = question_key(request);
                        if let Some(answer) = answers.get(&key) {
                            return answer.clone();
                        }
                        asked.insert(key, request.clone());
                        return denied("this call needs approval; the client was asked");
                    }
                    Asking::Peer {
                        peer,
                        timeout,
                        relay,
                    } => (peer.clone(), *timeout, relay.clone()),
                }
            };
            ask_peer(&peer.0, peer.1, peer.2, request).await
        })
    }
}

/// Sends the question over the session and waits for the answer.
async fn ask_peer(
    peer: &rmcp::Peer<RoleServer>,
    timeout: Duration,
    relay: Option<Relay>,
    request: &ApprovalRequest,
) -> Approval {
    let params = match serde_json::from_value::<ElicitRequestParams>(form(request)) {
        Ok(params) => params,
        Err(err) => {
            tracing::error!(%err, "approval question not representable; call denied");
            return denied("the approval question could not be sent");
        }
    };
    let asked = peer.create_elicitation_with_timeout(params, Some(timeout));
    let answered = match &relay {
        None => asked.await,
        Some(relay) => {
            let mark = relay.sessions.relay_mark(&relay.session).await;
            tokio::select! {
                answered = asked => answered,
                () = relay.sessions.relay_answers(&relay.session, mark) => {
                    unreachable!("relaying runs until the answer comes")
                }
            }
        }
    };
    match answered {
        Ok(result) => read_result(&result),
        Err(err) => {
            tracing::warn!(%err, tool = %request.tool, "the client did not answer an approval");
            denied(&format!(
                "the client gave no answer to the approval ({err})"
            ))
        }
    }
}

/// A denial with its reason.
fn denied(reason: &str) -> Approval {
    Approval::Deny {
        reason: Some(reason.to_owned()),
    }
}

/// The key a question and its answer share: the tool and its arguments,
/// digested (arguments are written with sorted keys, so the same call
/// always gives the same key).
pub(crate) fn question_key(request: &ApprovalRequest) -> String {
    let mut digest = Sha256::new();
    digest.update(request.tool.as_bytes());
    digest.update([0]);
    digest.update(serde_json::to_string(&*request.input).unwrap_or_default());
    let digest = digest.finalize();
    let mut key = String::from("approval-");
    for byte in &digest[..16] {
        key.push_str(&format!("{byte:02x}"));
    }
    key
}

/// The elicitation form of a question, as wire JSON (`params` of
/// `elicitation/create`).
fn form(request: &ApprovalRequest) -> Value {
    let content = request
        .content
        .as_ref()
        .map(|content| format!(" on `{}`", content.as_str()))
        .unwrap_or_default();
    json!({
        "mode": "form",
        "message": format!(
            "Allow `{}`{content}? {}. Answer `once` (this call), `always` (this tool with this \
             content, for the rest of the conversation) or `deny`.",
            request.tool, request.reason
        ),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "decision": {
                    "type": "string",
                    "title": "Decision",
                    "enum": ["once", "always", "deny"],
                }
            },
            "required": ["decision"],
        },
    })
}

/// What an answer (an `ElicitResult` as JSON) approves; anything unclear
/// is a denial.
fn read_answer(value: &Value) -> Approval {
    match serde_json::from_value::<ElicitResult>(value.clone()) {
        Ok(result) => read_result(&result),
        Err(_) => denied("the client's answer to the approval was not an elicitation result"),
    }
}

fn read_result(result: &ElicitResult) -> Approval {
    use rmcp::model::ElicitationAction;
    match result.action {
        ElicitationAction::Accept => {}
        ElicitationAction::Decline => return denied("the client's user declined"),
        _ => return denied("the client's user dismissed the approval"),
    }
    match result
        .content
        .as_ref()
        .and_then(|content| content.get("decision"))
        .and_then(Value::as_str)
    {
        Some("once") => Approval::AllowOnce,
        Some("always") => Approval::AllowAlways,
        Some("deny") => denied("the client's user denied it"),
        _ => denied("the client's answer named no decision (`once`, `always` or `deny`)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str) -> ApprovalRequest {
        ApprovalRequest {
            call_id: "c1".into(),
            tool: "write_file".into(),
            input: Arc::new(json!({ "path": path, "content": "x" })),
            content: None,
            reason: "`write_file` can destroy or overwrite data".into(),
        }
    }

    fn answer(action: &str, decision: Option<&str>) -> Value {
        match decision {
            Some(d) => json!({ "action": action, "content": { "decision": d } }),
            None => json!({ "action": action }),
        }
    }

    #[test]
    fn the_key_is_the_calls_own() {
        assert_eq!(question_key(&request("a")), question_key(&request("a")));
        assert_ne!(question_key(&request("a")), question_key(&request("b")));
        assert!(question_key(&request("a")).starts_with("approval-"));
    }

    #[test]
    fn only_an_accepted_once_or_always_approves() {
        assert_eq!(
            read_answer(&answer("accept", Some("once"))),
            Approval::AllowOnce
        );
        assert_eq!(
            read_answer(&answer("accept", Some("always"))),
            Approval::AllowAlways
        );
        for refused in [
            answer("accept", Some("deny")),
            answer("accept", Some("ALWAYS")),
            answer("accept", None),
            answer("decline", Some("always")),
            answer("cancel", None),
            json!("always"),
            json!({ "content": { "decision": "always" } }),
        ] {
            assert!(
                matches!(read_answer(&refused), Approval::Deny { .. }),
                "{refused}"
            );
        }
    }

    #[tokio::test]
    async fn a_round_answers_its_own_question_and_asks_the_rest() {
        let approver = ClientApprover::new();
        approver.ask_in_rounds(None);
        let first = approver.approve(&request("a")).await;
        assert!(matches!(first, Approval::Deny { .. }));
        let questions = approver.take_questions();
        assert_eq!(questions.len(), 1);
        let key = questions.keys().next().unwrap().clone();
        let wire = serde_json::to_value(&questions[&key]).unwrap();
        assert_eq!(wire["method"], "elicitation/create");
        assert!(
            wire["params"]["message"]
                .as_str()
                .unwrap()
                .contains("write_file")
        );

        let responses = BTreeMap::from([(key, answer("accept", Some("always")))]);
        approver.ask_in_rounds(Some(&responses));
        assert_eq!(approver.approve(&request("a")).await, Approval::AllowAlways);
        // The answer was for `a`: `b` is asked, not approved.
        assert!(matches!(
            approver.approve(&request("b")).await,
            Approval::Deny { .. }
        ));
        assert_eq!(approver.take_questions().len(), 1);
    }

    #[tokio::test]
    async fn nobody_to_ask_is_a_denial_naming_approval() {
        let approver = ClientApprover::new();
        match approver.approve(&request("a")).await {
            Approval::Deny { reason } => assert!(reason.unwrap().contains("approval")),
            other => panic!("{other:?}"),
        }
        assert!(approver.take_questions().is_empty());
    }
}
