//! `todo_write`: the model's plan for the session.
//!
//! # Posture
//!
//! - `read_only = false`: it replaces session state, so a runtime must not
//!   treat it as a pure read.
//! - `concurrency_safe = false`: each call replaces the whole list; two
//!   calls in one concurrent batch would race and one plan would silently
//!   win. Run alone, the last call in call order wins, as the model expects.
//! - `destructive = false`, declared: replacing the list is the tool's
//!   normal use (the model sends the complete list every time), and it only
//!   touches the session's own bookkeeping, never the user's files.
//! - `always_load`: the plan is how the model keeps track of long tasks, so
//!   the tool must be in context even when a runtime defers tools
//!   wholesale.
//! - Permission: `Allow`: there is nothing outside the session to protect.
//!
//! # State
//!
//! The list is the conversation's, not the tool's: run by the executor,
//! each call replaces it in the session state through a context modifier
//! (key [`TODOS_KEY`]), so two conversations served by one tool (two MCP
//! clients of one server) never see each other's plan, and a
//! conversation whose state is kept in a shared store (replicas behind a
//! load balancer) finds its list on any replica. Each call says how the
//! list it replaced stood, so the model sees a lost or stale plan.
//!
//! Called outside the executor (no session), the list lives in the tool
//! itself ([`TodoWrite::todos`]).

use std::sync::{Mutex, PoisonError};

use registry_core::session::ContextModifier;
use registry_core::{PermissionDecision, Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Replace the session's todo list with the given items and return the
/// list as it now stands. Use it to plan multi-step work and to show
/// progress: send the complete list every time (items left out are
/// dropped), mark an item `in_progress` when you start it and `completed`
/// as soon as it is done.
///
/// Arguments:
/// - `todos`: the complete list, in order. Each item has `content` (what to
///   do, non-empty) and `status` (`pending`, `in_progress` or `completed`).
///   At most one item may be `in_progress`. An empty list clears it.
#[tool(
    name = "todo_write",
    concurrency_safe = false,
    read_only = false,
    destructive = false,
    always_load,
    search_hint = "plan tasks checklist progress",
    // Changes only the conversation's own list.
    // The workspace (or the conversation) is a closed world: MCP clients
    // are told so (`openWorldHint: false`).
    open_world = false,
    rule_of_two = [],
)]
#[derive(Debug, Default)]
pub struct TodoWrite {
    todos: Mutex<Vec<TodoItem>>,
}

/// The session-state key holding the list (a JSON array of items).
pub const TODOS_KEY: &str = "todo_write.todos";

impl TodoWrite {
    /// The list as the last successful call outside a session left it.
    pub fn todos(&self) -> Vec<TodoItem> {
        self.todos
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The arguments of `todo_write`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteInput {
    /// The complete new todo list, in order. Items not listed are dropped.
    pub todos: Vec<TodoItem>,
}

/// One item of the todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// What to do, in a few words. Must not be empty.
    pub content: String,
    /// Where the item stands.
    pub status: TodoStatus,
}

/// Where a todo item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on now (at most one item).
    InProgress,
    /// Done.
    Completed,
}

impl TodoStatus {
    fn mark(self) -> &'static str {
        match self {
            TodoStatus::Pending => "[ ]",
            TodoStatus::InProgress => "[>]",
            TodoStatus::Completed => "[x]",
        }
    }
}

/// Why `todo_write` refused a list. The previous list is kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TodoError {
    /// An item has no content.
    #[error("todo item {item} has empty `content`")]
    EmptyContent {
        /// The item's position, counting from 1.
        item: usize,
    },
    /// More than one item is `in_progress`.
    #[error(
        "todo items {first} and {second} are both `in_progress`; at most one item may be in progress"
    )]
    SeveralInProgress {
        /// The first such item, counting from 1.
        first: usize,
        /// The second such item, counting from 1.
        second: usize,
    },
}

impl TodoWriteInput {
    fn check(&self) -> Result<(), TodoError> {
        let mut in_progress = None;
        for (index, todo) in self.todos.iter().enumerate() {
            let item = index + 1;
            if todo.content.trim().is_empty() {
                return Err(TodoError::EmptyContent { item });
            }
            if todo.status == TodoStatus::InProgress {
                if let Some(first) = in_progress {
                    return Err(TodoError::SeveralInProgress {
                        first,
                        second: item,
                    });
                }
                in_progress = Some(item);
            }
        }
        Ok(())
    }
}

impl Tool for TodoWrite {
    type Input = TodoWriteInput;
    type Output = String;
    type Error = TodoError;

    async fn call(&self, input: TodoWriteInput, cx: &ToolContext) -> Result<String, TodoError> {
        input.check()?;
        let mut rendered = render(&input.todos);
        let previous = match cx.session_state() {
            Some(state) => state
                .get(TODOS_KEY)
                .and_then(|list| serde_json::from_value::<Vec<TodoItem>>(list.clone()).ok())
                .unwrap_or_default(),
            None => self.todos(),
        };
        if !previous.is_empty() {
            let done = previous
                .iter()
                .filter(|t| t.status == TodoStatus::Completed)
                .count();
            rendered.push_str(&format!(
                "(replaced a list of {} items, {done} completed)\n",
                previous.len()
            ));
        }
        let list = serde_json::to_value(&input.todos).unwrap_or_default();
        if !cx.modify_session(ContextModifier::set(TODOS_KEY, list)) {
            *self.todos.lock().unwrap_or_else(PoisonError::into_inner) = input.todos;
        }
        Ok(rendered)
    }

    fn validate_input(&self, input: &TodoWriteInput, _cx: &ToolContext) -> Result<(), Self::Error> {
        input.check()
    }

    fn check_permissions(&self, _input: &TodoWriteInput, _cx: &ToolContext) -> PermissionDecision {
        PermissionDecision::Allow
    }
}

fn render(todos: &[TodoItem]) -> String {
    if todos.is_empty() {
        return "todo list cleared (0 items)\n".to_owned();
    }
    let count = |status| todos.iter().filter(|t| t.status == status).count();
    let mut out = format!(
        "todo list ({} items: {} completed, {} in progress, {} pending)\n",
        todos.len(),
        count(TodoStatus::Completed),
        count(TodoStatus::InProgress),
        count(TodoStatus::Pending)
    );
    for (index, todo) in todos.iter().enumerate() {
        out.push_str(&format!(
            "{}. {} {}\n",
            index + 1,
            todo.status.mark(),
            todo.content
        ));
    }
    out
}
