//! Session state that tool results change, and the modifiers that change
//! it.
//!
//! A tool queues a [`ContextModifier`] through
//! [`ToolContext::modify_session`](crate::declare::ToolContext::modify_session). The
//! executor applies a serial call's modifiers right after the call, before
//! the next one starts; the modifiers of a concurrent batch are queued and
//! applied in call order after the whole batch. Calls of one concurrent
//! batch therefore never see each other's modifiers: each reads the state
//! as it was when the batch started.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

/// What tools of one session have learned or changed: files read, the
/// working directory, and free-form values by key. Ordered collections
/// only, so anything rendered from it is deterministic.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionState {
    files_read: BTreeSet<String>,
    cwd: Option<String>,
    values: BTreeMap<String, Value>,
}

impl SessionState {
    /// Files some call has read, sorted.
    pub fn files_read(&self) -> &BTreeSet<String> {
        &self.files_read
    }

    /// The working directory a call changed to, if any.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// A free-form value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.get(key)
    }

    /// Every free-form value, by key.
    pub fn values(&self) -> &BTreeMap<String, Value> {
        &self.values
    }

    /// Records that a file was read.
    pub fn mark_read(&mut self, path: impl Into<String>) {
        self.files_read.insert(path.into());
    }

    /// Sets the working directory.
    pub fn set_cwd(&mut self, cwd: impl Into<String>) {
        self.cwd = Some(cwd.into());
    }

    /// Sets a free-form value.
    pub fn set(&mut self, key: impl Into<String>, value: Value) {
        self.values.insert(key.into(), value);
    }
}

type Apply = Box<dyn FnOnce(&mut SessionState) + Send + Sync>;

/// One change of session state, queued by a tool and applied by the
/// executor (see the module docs for when).
pub struct ContextModifier {
    label: Cow<'static, str>,
    apply: Apply,
}

impl ContextModifier {
    /// Any change; `label` names it in logs and `Debug`.
    pub fn new(
        label: impl Into<Cow<'static, str>>,
        apply: impl FnOnce(&mut SessionState) + Send + Sync + 'static,
    ) -> Self {
        ContextModifier {
            label: label.into(),
            apply: Box::new(apply),
        }
    }

    /// "This file was read."
    pub fn file_read(path: impl Into<String>) -> Self {
        let path = path.into();
        Self::new("file_read", move |state| state.mark_read(path))
    }

    /// "The working directory is now `cwd`."
    pub fn cwd(cwd: impl Into<String>) -> Self {
        let cwd = cwd.into();
        Self::new("cwd", move |state| state.set_cwd(cwd))
    }

    /// "`key` is now `value`."
    pub fn set(key: impl Into<String>, value: Value) -> Self {
        let key = key.into();
        Self::new("set", move |state| state.set(key, value))
    }

    /// What the modifier does, in a word.
    pub fn label(&self) -> &str {
        &self.label
    }

    pub(crate) fn apply(self, state: &mut SessionState) {
        (self.apply)(state);
    }
}

impl fmt::Debug for ContextModifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ContextModifier").field(&self.label).finish()
    }
}
