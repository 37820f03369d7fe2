use registry_core::tool;

/// Echo.
#[tool(name = "echo")]
enum Echo {
    Loud,
    Quiet,
}

/// Also not a tool.
#[tool(name = "ping")]
fn ping() {}

fn main() {
    // The item is still emitted, so this keeps compiling.
    let _ = Echo::Loud;
    ping();
}
