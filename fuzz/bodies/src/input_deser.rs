//! `input_deser`: the tool-input deserializer (`ToolInput::__parse`, the
//! crate's located deserializer) against `serde_path_to_error` over
//! serde_json's own `&Value` deserializer, on the same JSON.
//!
//! Property: both accept the same arguments, to the same value; both
//! refuse the same arguments, with the same message, at the same path, or
//! (for a failure inside an enum's payload, which the located
//! deserializer places at the enum, see `registry_core::input`) at an
//! ancestor of it.

use std::fmt::Debug;

use registry_core::declare::ToolInput;
use registry_examples::tools::{
    edit_file::EditFileInput, glob::GlobInput, grep::GrepInput, list_dir::ListDirInput,
    read_file::ReadFileInput, run_command::RunCommandInput, todo_write::TodoWriteInput,
    write_file::WriteFileInput,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tools::{DrawInput, TreeInput};

/// One input type's check.
type Check = fn(&Value);

/// The input types checked, the first byte picking one.
const CHECKS: &[Check] = &[
    same::<DrawInput>,
    same::<TreeInput>,
    same::<EditFileInput>,
    same::<GlobInput>,
    same::<GrepInput>,
    same::<ListDirInput>,
    same::<ReadFileInput>,
    same::<RunCommandInput>,
    same::<TodoWriteInput>,
    same::<WriteFileInput>,
];

/// The first byte picks the input type; the rest is the arguments.
pub fn run(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some(args) = crate::json(rest) else {
        return;
    };
    CHECKS[usize::from(pick) % CHECKS.len()](&args);
}

/// What serde_json says, located by serde_path_to_error (`""` for the
/// arguments themselves, as the located deserializer writes it).
fn reference<T: DeserializeOwned>(args: &Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize::<_, T>(args).map_err(|err| {
        // The root displays as `.`, and so does a key named `.`: only
        // the segments tell them apart.
        let path = if err.path().iter().next().is_none() {
            String::new()
        } else {
            err.path().to_string()
        };
        (path, err.into_inner().to_string())
    })
}

/// Whether `ancestor` is `path` or a path above it.
fn is_at_or_above(ancestor: &str, path: &str) -> bool {
    ancestor.is_empty()
        || path == ancestor
        || path
            .strip_prefix(ancestor)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// A number key with trailing text (`"7x"` in a map of `u32` keys): the
/// located deserializer names the key as sent (`weights.7x`), where
/// serde_path_to_error shows the number it read before the text
/// (`weights.7`, or `weights.?` when the digits overflow); the model
/// needs the key it sent (see
/// `a_number_key_with_trailing_text_is_located_as_sent` in
/// `registry_core::input`).
fn is_number_key_as_sent(path: &str, their_path: &str) -> bool {
    // Split theirs, whose last segment is the number it read, or `?` when
    // the number did not fit; the key as sent may hold any character, `.`
    // included.
    let Some((parent, number)) = their_path.rsplit_once('.') else {
        return false;
    };
    let read_a_number = number == "?" || number.parse::<f64>().is_ok();
    read_a_number
        && path
            .strip_prefix(parent)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|key| key != number && (number == "?" || key.starts_with(number)))
}

fn same<T: ToolInput + DeserializeOwned + Debug>(args: &Value) {
    let type_name = std::any::type_name::<T>();
    match (T::__parse(args), reference::<T>(args)) {
        (Ok(ours), Ok(theirs)) => assert_eq!(
            format!("{ours:?}"),
            format!("{theirs:?}"),
            "{type_name}: {args} parsed to different values"
        ),
        (Err((path, message)), Err((their_path, their_message))) => {
            assert_eq!(
                message, their_message,
                "{type_name}: {args}: different messages"
            );
            assert!(
                is_at_or_above(&path, &their_path) || is_number_key_as_sent(&path, &their_path),
                "{type_name}: {args}: located at `{path}`, serde_path_to_error at `{their_path}`"
            );
        }
        (Ok(ours), Err(theirs)) => {
            panic!("{type_name}: {args}: accepted as {ours:?}; serde_json refuses: {theirs:?}")
        }
        (Err(ours), Ok(theirs)) => {
            panic!("{type_name}: {args}: refused ({ours:?}); serde_json accepts: {theirs:?}")
        }
    }
}
