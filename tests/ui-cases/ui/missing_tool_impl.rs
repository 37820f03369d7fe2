use registry_core::tool;

/// Echo.
#[tool(name = "echo")]
struct Echo;

fn main() {}
