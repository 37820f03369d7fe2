//! Making the runner: the builder's template, the session and the pool,
//! indexed once.

use std::sync::{Arc, RwLock};

use super::Runner;
use crate::declare::PostureKind;
use crate::execute::cap::CapConfig;
use crate::execute::config::ExecutorConfig;
use crate::execute::executor::RunnerRef;
use crate::execute::resolve::PoolIndex;
use crate::permission::enforce::PathAccess;
use crate::permission::exposure::CallExposure;
use crate::pool::ToolPool;
use crate::session::Session;
use crate::session::conversation::CallSession;

impl Runner {
    /// The runner of the executor [`ExecutorBuilder::build`](crate::execute::ExecutorBuilder::build)
    /// makes: `pool` indexed once, everything else as the builder says.
    /// Its calls' context holds a weak reference back to it, through which
    /// a tool that runs programs submits their calls
    /// ([`Executor::run_nested`]); weak, so the runner does not keep itself
    /// alive.
    pub(in crate::execute) fn new(
        template: crate::execute::builder::ExecutorTemplate,
        session: Arc<Session>,
        pool: Arc<ToolPool>,
    ) -> Arc<Self> {
        let crate::execute::builder::ExecutorTemplate {
            registry,
            permissions,
            policy,
            config,
            context,
            rule,
            access_root,
            call_hooks,
        } = template;
        let path_tools: Vec<(String, PathAccess)> = pool
            .iter()
            .map(|tool| {
                let reads = matches!(tool.spec().read_only().value(), PostureKind::Fixed(true));
                let access = if reads {
                    PathAccess::Read
                } else {
                    PathAccess::Write
                };
                (tool.name().to_owned(), access)
            })
            .collect();
        Arc::new_cyclic(|runner| Runner {
            index: PoolIndex::new(&pool),
            pool,
            registry,
            permissions: RwLock::new(Arc::new(permissions)),
            path_tools: Arc::from(path_tools),
            policy,
            cap: cap_config(&config),
            config,
            // Calls find the conversation through their context (see
            // `CallSession`): one session, the executor's.
            context: context
                .with(CallSession(Arc::clone(&session)))
                .with(CallExposure(Arc::clone(&session.acquired)))
                .with(RunnerRef(runner.clone())),
            session,
            rule,
            access_root,
            hooks: call_hooks,
        })
    }
}

fn cap_config(config: &ExecutorConfig) -> CapConfig {
    CapConfig {
        spill_dir: config.spill_dir.clone(),
        preview_chars: config.preview_chars,
        max_binary_bytes: config.max_result_bytes,
    }
}
