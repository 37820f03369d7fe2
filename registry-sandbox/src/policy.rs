//! What one command is held to: the call's program rules, the programs its
//! reading predicted, the paths its path rules guard, and the network
//! allow list.

use std::path::Path;
use std::sync::Arc;

use registry_core::__private::enforce::{PathGuard, ProgramRules};
use registry_core::ToolContext;
use registry_core::permission::{CallRules, PermissionContext, PermissionMode};
use shell_reading::Reading;

use crate::command::SandboxError;
use crate::probe::{FsMechanism, Guarantees};

/// The programs a command's reading names: what the call was decided on.
#[derive(Debug, Clone, Default)]
pub struct Prediction {
    /// Programs named without a path (`ls`), looked up in `PATH`.
    pub(crate) names: Vec<String>,
    /// Programs named by a path (`./build.sh`, `/bin/ls`), relative to the
    /// working directory.
    pub(crate) paths: Vec<String>,
    /// Programs that run another program named in their arguments
    /// (`nice`, `env`, `xargs`): what they start is still the command's own.
    pub(crate) wrappers: Vec<String>,
}

impl Prediction {
    /// Nothing predicted: outside `bypass` the shell may start only what
    /// allow rules cover.
    pub fn none() -> Self {
        Prediction::default()
    }

    /// The programs of a reading: every program of every simple command,
    /// through wrappers, substitutions and `sh -c` strings. A reading
    /// that cannot vouch for its programs still contributes those it
    /// found; what it missed is stopped when it starts.
    pub fn from_reading(reading: &Reading) -> Self {
        let mut prediction = Prediction::default();
        for run in reading.runs() {
            let last = run.layers.len().saturating_sub(1);
            for (i, layer) in run.layers.iter().enumerate() {
                let text = layer.program.text.clone();
                if i < last {
                    prediction.wrappers.push(layer.name().to_owned());
                }
                if layer.by_path() {
                    prediction.paths.push(text);
                } else {
                    prediction.names.push(text);
                }
            }
        }
        for list in [
            &mut prediction.names,
            &mut prediction.paths,
            &mut prediction.wrappers,
        ] {
            list.sort();
            list.dedup();
        }
        prediction
    }
}

/// A network destination a command may connect to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NetworkAllow {
    /// The host, as the runtime wrote it (enforced by port only: see the
    /// crate docs).
    pub host: String,
    /// The TCP port.
    pub port: u16,
}

impl NetworkAllow {
    /// `host:port`.
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        NetworkAllow {
            host: host.into(),
            port,
        }
    }
}

/// The network allow list a runtime puts into the tool context; none (the
/// default) keeps the network off.
///
/// ```
/// use registry_core::ToolContext;
/// use registry_sandbox::{NetworkAllow, Policy};
///
/// let cx = ToolContext::new().with(vec![NetworkAllow::new("127.0.0.1", 8080)]);
/// # let _ = cx;
/// ```
pub type NetworkAllowList = Vec<NetworkAllow>;

/// Directories a runtime lets every command write besides the working
/// directory and the private temporary directory (a build cache such as
/// `CARGO_HOME` or `~/.npm`), put into the tool context. The runtime
/// decides this, never the model; a path rule still guards what it covers
/// inside them.
///
/// ```
/// use registry_core::ToolContext;
/// use registry_sandbox::WritablePaths;
///
/// let cx = ToolContext::new().with(WritablePaths(vec!["/root/.cargo/registry".into()]));
/// # let _ = cx;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WritablePaths(pub Vec<std::path::PathBuf>);

/// Put into a tool context, turns every guard off: commands run as plain
/// child processes. For a test that shows the damage the guards prevent
/// (a test that cannot fail proves nothing); a runtime never sets it.
///
/// ```
/// use registry_core::ToolContext;
///
/// let cx = ToolContext::new().with(registry_sandbox::GuardsOff);
/// # let _ = cx;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct GuardsOff;

/// What one command is held to.
#[derive(Debug, Clone)]
pub struct Policy {
    pub(crate) rules: ProgramRules,
    pub(crate) prediction: Prediction,
    pub(crate) guards: Vec<PathGuard>,
    pub(crate) network: Vec<NetworkAllow>,
    pub(crate) writable: Vec<std::path::PathBuf>,
    pub(crate) enforce: bool,
    /// A person accepted what this machine cannot enforce.
    pub(crate) accepted_missing: bool,
}

impl Policy {
    /// The policy of a call: its rules as the executor attached them to
    /// `cx` (outside the executor, the strictest: no allow rule, only the
    /// predicted programs), the paths its path rules guard under `root`,
    /// and the network allow list in `cx` (none: off).
    pub fn for_call(
        cx: &ToolContext,
        root: &Path,
        prediction: Prediction,
    ) -> Result<Policy, SandboxError> {
        if cx.get::<GuardsOff>().is_some() {
            return Ok(Policy::unguarded());
        }
        let strict;
        let rules: &CallRules = match CallRules::of(cx) {
            Some(rules) => rules,
            None => {
                strict = CallRules::new(
                    Arc::new(PermissionContext::new()),
                    "",
                    Vec::new(),
                    PermissionMode::Default,
                );
                &strict
            }
        };
        let network = cx.get::<NetworkAllowList>().cloned().unwrap_or_default();
        let mut policy = Policy::new(rules, root, prediction, network)?;
        if let Some(WritablePaths(dirs)) = cx.get::<WritablePaths>() {
            policy.writable = dirs.clone();
        }
        Ok(policy)
    }

    /// The policy of `rules` for a command run in `root` (what
    /// [`for_call`](Self::for_call) builds from a tool context).
    pub fn new(
        rules: &CallRules,
        root: &Path,
        prediction: Prediction,
        network: Vec<NetworkAllow>,
    ) -> Result<Policy, SandboxError> {
        Ok(Policy {
            rules: rules.program_rules(),
            prediction,
            guards: rules.path_guards(root)?,
            network,
            writable: Vec::new(),
            enforce: true,
            accepted_missing: false,
        })
    }

    /// No guard at all: the command runs as a plain child process. For a
    /// test that shows the damage the guards prevent; never for a model's
    /// command.
    pub fn unguarded() -> Policy {
        Policy {
            rules: CallRules::new(
                Arc::new(PermissionContext::new()),
                "",
                Vec::new(),
                PermissionMode::Bypass,
            )
            .program_rules(),
            prediction: Prediction::none(),
            guards: Vec::new(),
            network: Vec::new(),
            writable: Vec::new(),
            enforce: false,
            accepted_missing: false,
        }
    }

    /// Runs with the guards this machine has even where the policy needs
    /// more ([`missing`](Self::missing) is not empty): for a call a person
    /// approved after being told what is missing, never otherwise.
    pub fn accept_missing(mut self) -> Self {
        self.accepted_missing = true;
        self
    }

    /// Lets the command write beneath these directories too (see
    /// [`WritablePaths`]).
    pub fn with_writable(mut self, dirs: Vec<std::path::PathBuf>) -> Self {
        self.writable = dirs;
        self
    }

    /// Replaces the network allow list.
    pub fn with_network(mut self, allow: Vec<NetworkAllow>) -> Self {
        self.network = allow;
        self
    }

    /// The paths guarded.
    pub fn guards(&self) -> &[PathGuard] {
        &self.guards
    }

    /// What this policy needs that `machine` cannot enforce, each phrased
    /// to follow "this machine cannot enforce"; empty when everything
    /// holds.
    pub fn missing(&self, machine: &Guarantees) -> Vec<String> {
        let mut missing = Vec::new();
        if !self.enforce || self.accepted_missing {
            return missing;
        }
        if self.rules.restricts()
            && let Err(why) = &machine.exec_guard
        {
            missing.push(format!("which programs the command starts ({why})"));
        }
        match &machine.fs_guard {
            Err(why) => missing.push(format!("where the command writes ({why})")),
            Ok(FsMechanism::LandlockOnly) if !self.guards.is_empty() => missing.push(format!(
                "the path rules ({} guards `{}`) without a mount namespace",
                self.guards[0].rule,
                self.guards[0].path.display()
            )),
            Ok(_) => {}
        }
        if self.network.is_empty() {
            if let Err(why) = &machine.network {
                missing.push(format!("the network off ({why})"));
            }
        } else if machine.landlock_abi < 4 {
            missing.push("a network allow list (needs Landlock ABI 4)".to_owned());
        }
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_core::__private::enforce::PathAccess;
    use registry_core::permission::{AllowedBy, RuleBehavior, RuleSource};

    fn machine(exec: bool, fs: Option<FsMechanism>, net: bool, abi: i32) -> Guarantees {
        Guarantees {
            exec_guard: if exec {
                Ok(())
            } else {
                Err("not here".to_owned())
            },
            fs_guard: fs.ok_or_else(|| "not here".to_owned()),
            network: if net {
                Ok(crate::NetMechanism::Namespace)
            } else {
                Err("not here".to_owned())
            },
            landlock_abi: abi,
            user_namespace: false,
        }
    }

    fn policy(mode: PermissionMode, rules: &[(RuleBehavior, &str)], root: &Path) -> Policy {
        let mut cx = PermissionContext::new();
        for (behavior, rule) in rules {
            cx.add_rule(RuleSource::Project, *behavior, rule).unwrap();
        }
        let rules = CallRules::new(Arc::new(cx), "run_command", Vec::new(), mode)
            .with_path_tools(Arc::from(vec![("edit_file".to_owned(), PathAccess::Write)]))
            .with_allowed_by(AllowedBy::Mode(mode));
        Policy::new(&rules, root, Prediction::none(), Vec::new()).unwrap()
    }

    #[test]
    fn what_the_machine_cannot_enforce_is_named_never_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("victim.txt"), "v").unwrap();
        let full = machine(true, Some(FsMechanism::MountNamespace), true, 7);
        let strict = policy(
            PermissionMode::Bypass,
            &[
                (RuleBehavior::Deny, "run_command(rm:*)"),
                (RuleBehavior::Deny, "edit_file(victim.txt)"),
            ],
            dir.path(),
        );
        assert!(strict.missing(&full).is_empty());

        let bare = machine(false, Some(FsMechanism::LandlockOnly), false, 3);
        let missing = strict.missing(&bare);
        assert_eq!(missing.len(), 3, "{missing:?}");
        assert!(missing[0].starts_with("which programs"), "{missing:?}");
        assert!(missing[1].contains("edit_file(victim.txt)"), "{missing:?}");
        assert!(missing[2].starts_with("the network off"), "{missing:?}");
        // Only a person's acceptance quiets it.
        assert!(strict.clone().accept_missing().missing(&bare).is_empty());

        // Bypass with no deny rule needs no exec guard; an allow list needs
        // Landlock's TCP rules.
        let open = policy(PermissionMode::Bypass, &[], dir.path())
            .with_network(vec![NetworkAllow::new("127.0.0.1", 8080)]);
        assert_eq!(
            open.missing(&bare),
            vec!["a network allow list (needs Landlock ABI 4)".to_owned()]
        );
        // Outside bypass the shell's starts are judged: the exec guard is
        // needed even without a rule.
        let default = policy(PermissionMode::Default, &[], dir.path());
        assert!(default.missing(&bare)[0].starts_with("which programs"));
        assert!(Policy::unguarded().missing(&bare).is_empty());
    }
}
