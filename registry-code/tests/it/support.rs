//! Tools for the suites: a small in-memory disk, so what a program did can
//! be read back, and a counter of every body that ran.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use registry_code::{CODE_MODE_FLAG, CodeMode};
use registry_core::access::{Access, AccessKey};
use registry_core::catalog::Flags;
use registry_core::search::TOOL_SEARCH_FLAG;
use registry_core::{
    Executor, ExecutorBuilder, Json, PermissionContent, PermissionMode, Tool, ToolCall,
    ToolCallResult, ToolContext, ToolRegistry, tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The disk every tool of a test reads and writes, and how many bodies
/// ran, by tool.
#[derive(Default)]
pub struct Disk {
    pub files: Mutex<BTreeMap<String, String>>,
    pub runs: Mutex<BTreeMap<&'static str, usize>>,
    /// Calls of `slow_write` running now, and the most at once.
    pub in_flight: AtomicUsize,
    pub most_in_flight: AtomicUsize,
}

impl Disk {
    pub fn with_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Arc<Disk> {
        let disk = Disk::default();
        disk.files.lock().unwrap().extend(
            files
                .into_iter()
                .map(|(path, text)| (path.to_owned(), text.to_owned())),
        );
        Arc::new(disk)
    }

    pub fn runs(&self, tool: &str) -> usize {
        self.runs.lock().unwrap().get(tool).copied().unwrap_or(0)
    }

    pub fn file(&self, path: &str) -> Option<String> {
        self.files.lock().unwrap().get(path).cloned()
    }

    fn ran(&self, tool: &'static str) {
        *self.runs.lock().unwrap().entry(tool).or_default() += 1;
    }
}

fn disk(cx: &ToolContext) -> &Disk {
    cx.get::<Arc<Disk>>()
        .expect("the test puts a disk in the context")
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PathInput {
    /// The file.
    pub path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteInput {
    /// The file.
    pub path: String,
    /// Its new text.
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DiskError(String);

/// Read a file.
#[tool(
    name = "read_file",
    read_only = true,
    concurrency_safe = true,
    rule_of_two = ["private_data"],
    access = |i: &PathInput| Access::read(AccessKey::path(&i.path))
)]
pub struct ReadFile;

impl Tool for ReadFile {
    type Input = PathInput;
    type Output = String;
    type Error = DiskError;
    async fn call(&self, input: PathInput, cx: &ToolContext) -> Result<String, DiskError> {
        disk(cx).ran("read_file");
        disk(cx)
            .file(&input.path)
            .ok_or_else(|| DiskError(format!("no such file: {}", input.path)))
    }
    fn permission_content(&self, input: &PathInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

/// List the files.
#[tool(
    name = "list_files",
    read_only = true,
    concurrency_safe = true,
    rule_of_two = ["private_data"]
)]
pub struct ListFiles;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoInput {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Listing {
    /// Every path.
    pub paths: Vec<String>,
    /// How many.
    pub count: usize,
}

impl Tool for ListFiles {
    type Input = NoInput;
    type Output = Json<Listing>;
    type Error = std::convert::Infallible;
    async fn call(&self, _: NoInput, cx: &ToolContext) -> Result<Json<Listing>, Self::Error> {
        disk(cx).ran("list_files");
        let paths: Vec<String> = disk(cx).files.lock().unwrap().keys().cloned().collect();
        Ok(Json(Listing {
            count: paths.len(),
            paths,
        }))
    }
}

/// Write a file. Calls on different paths run together.
#[tool(
    name = "write_file",
    rule_of_two = ["external_effect"],
    access = |i: &WriteInput| Access::write(AccessKey::path(&i.path))
)]
pub struct WriteFile;

impl Tool for WriteFile {
    type Input = WriteInput;
    type Output = String;
    type Error = DiskError;
    async fn call(&self, input: WriteInput, cx: &ToolContext) -> Result<String, DiskError> {
        let disk = disk(cx);
        disk.ran("write_file");
        let now = disk.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        disk.most_in_flight.fetch_max(now, Ordering::SeqCst);
        // Long enough for calls planned together to overlap.
        tokio::time::sleep(Duration::from_millis(30)).await;
        disk.in_flight.fetch_sub(1, Ordering::SeqCst);
        disk.files
            .lock()
            .unwrap()
            .insert(input.path.clone(), input.text);
        Ok(format!("wrote {}", input.path))
    }
    fn permission_content(&self, input: &WriteInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

/// Delete a file.
#[tool(name = "delete_file", destructive = true, rule_of_two = ["external_effect"])]
pub struct DeleteFile;

impl Tool for DeleteFile {
    type Input = PathInput;
    type Output = String;
    type Error = DiskError;
    async fn call(&self, input: PathInput, cx: &ToolContext) -> Result<String, DiskError> {
        disk(cx).ran("delete_file");
        match disk(cx).files.lock().unwrap().remove(&input.path) {
            Some(_) => Ok(format!("deleted {}", input.path)),
            None => Err(DiskError(format!("no such file: {}", input.path))),
        }
    }
    fn permission_content(&self, input: &PathInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CityInput {
    /// The city.
    pub city: String,
}

/// The weather in a city, from the deferred catalog.
#[tool(
    name = "city_weather",
    read_only = true,
    concurrency_safe = true,
    defer,
    search_hint = "forecast temperature rain",
    rule_of_two = ["untrusted_input"]
)]
pub struct CityWeather;

impl Tool for CityWeather {
    type Input = CityInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: CityInput, cx: &ToolContext) -> Result<String, Self::Error> {
        disk(cx).ran("city_weather");
        Ok(format!("sunny in {}", input.city))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SleepInput {
    /// How long.
    pub ms: u64,
}

/// Wait.
#[tool(name = "sleep", read_only = true, concurrency_safe = true, rule_of_two = [])]
pub struct Sleep;

impl Tool for Sleep {
    type Input = SleepInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: SleepInput, cx: &ToolContext) -> Result<String, Self::Error> {
        disk(cx).ran("sleep");
        tokio::time::sleep(Duration::from_millis(input.ms)).await;
        Ok("slept".to_owned())
    }
}

/// Who is asking: a result for the model's own eyes, never a program's.
#[tool(
    name = "whoami",
    read_only = true,
    allowed_callers = ["direct"],
    rule_of_two = ["private_data"]
)]
pub struct WhoAmI;

impl Tool for WhoAmI {
    type Input = NoInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, _: NoInput, cx: &ToolContext) -> Result<String, Self::Error> {
        disk(cx).ran("whoami");
        Ok("the model".to_owned())
    }
}

/// The flags every suite lists tools under: code mode and tool search on.
pub fn flags() -> Flags {
    Flags::new().with(CODE_MODE_FLAG).with(TOOL_SEARCH_FLAG)
}

/// An executor over the test tools, with `disk` and `mode` in its
/// context.
pub fn executor_with(
    disk: &Arc<Disk>,
    mode: CodeMode,
    build: impl FnOnce(ExecutorBuilder) -> ExecutorBuilder,
) -> Executor {
    registry_code::link();
    let registry = ToolRegistry::linked(&flags()).expect("the list builds");
    let builder = registry
        .executor()
        .context(ToolContext::new().with(Arc::clone(disk)).with(mode));
    build(builder).build()
}

/// An executor over the test tools in bypass mode (every call allowed
/// unless a rule says no), default code mode.
pub fn executor(disk: &Arc<Disk>) -> Executor {
    executor_with(disk, CodeMode::new(), |b| b.mode(PermissionMode::Bypass))
}

/// One `code` call.
pub fn code(id: &str, program: &str) -> ToolCall {
    ToolCall::new(id, "code", json!({ "program": program }))
}

/// Runs one program as the model's only call; its result.
pub async fn run_program(executor: &Executor, program: &str) -> ToolCallResult {
    let mut results = executor.run_turn(vec![code("c1", program)]).await;
    results.remove(0)
}
