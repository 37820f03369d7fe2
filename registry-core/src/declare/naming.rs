//! The tool-name rule shared by every provider: `^[a-zA-Z0-9_-]{1,64}$`.
//!
//! `#[tool]` checks the same rule at compile time (registry-macros cannot
//! depend on this crate); this copy guards names made at run time.

use crate::declare::NameError;

/// The longest name every provider accepts.
pub const MAX_NAME_LEN: usize = 64;

/// Checks `name` against `^[a-zA-Z0-9_-]{1,64}$`, the strictest rule among
/// the providers (Anthropic, OpenAI, MCP clients).
///
/// (`read_file` passes, `read file` does not.)
pub(crate) fn validate_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > MAX_NAME_LEN {
        return Err(NameError::TooLong {
            name: name.to_owned(),
            len: name.len(),
        });
    }
    if let Some((index, ch)) = name
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(NameError::BadChar {
            name: name.to_owned(),
            ch,
            index,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_provider_alphabet() {
        for ok in ["a", "read_file", "Read-File_2", &"x".repeat(64)] {
            assert_eq!(validate_name(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rejects_each_way_to_be_wrong() {
        assert_eq!(validate_name(""), Err(NameError::Empty));
        assert!(matches!(
            validate_name(&"x".repeat(65)),
            Err(NameError::TooLong { len: 65, .. })
        ));
        assert!(matches!(
            validate_name("read.file"),
            Err(NameError::BadChar {
                ch: '.',
                index: 4,
                ..
            })
        ));
        assert!(matches!(
            validate_name("lé"),
            Err(NameError::BadChar { ch: 'é', .. })
        ));
    }
}
