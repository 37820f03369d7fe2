//! Posture expressions as token text, for comparing two versions of one.
//!
//! The macro records an expression as the compiler printed its tokens, and
//! that spacing is not part of what the expression says. Literal contents
//! are: `"read only"` and `"readonly"` are different strings. So whitespace
//! is dropped between tokens, kept as one space only where dropping it
//! would join two words (`x as u8`, `move |i|`), and kept verbatim inside
//! string, byte-string, raw-string and character literals.

/// The expression with insignificant whitespace removed.
pub(crate) fn normalise(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut pending_space = false;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            pending_space = true;
            i += 1;
            continue;
        }
        let end = literal_end(&chars, i).unwrap_or(i + 1);
        if pending_space && out.chars().last().is_some_and(is_word) && is_word(c) {
            out.push(' ');
        }
        pending_space = false;
        out.extend(&chars[i..end]);
        i = end;
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// When a string or character literal starts at `i`, the index just past
/// it (or the end of the text, for an unterminated one).
fn literal_end(chars: &[char], i: usize) -> Option<usize> {
    // A prefix glued to a word (`xr"..."`) is not a literal prefix.
    let after_word = i > 0 && is_word(chars[i - 1]);
    let at = |k: usize| chars.get(k).copied();
    let mut j = i;
    if !after_word {
        // `b"`, `c"`, `br"`, `cr"`, `r"`, `r#"`, `b'`.
        if matches!(at(j), Some('b' | 'c')) && matches!(at(j + 1), Some('"' | '\'' | 'r')) {
            j += 1;
        }
        if at(j) == Some('r') && matches!(at(j + 1), Some('"' | '#')) {
            let hashes = chars[j + 1..].iter().take_while(|&&c| c == '#').count();
            let open = j + 1 + hashes;
            if at(open) != Some('"') {
                return None;
            }
            return Some(raw_end(chars, open + 1, hashes));
        }
    }
    match at(j) {
        Some('"') => Some(quoted_end(chars, j + 1, '"')),
        // `'a'`, `'\n'`, `'\''`; a lifetime (`'a`) has no closing quote
        // right after its first character.
        Some('\'') if at(j + 1) == Some('\\') || at(j + 2) == Some('\'') => {
            Some(quoted_end(chars, j + 1, '\''))
        }
        _ => None,
    }
}

/// Past the closing `quote` of an escaped literal whose body starts at `k`.
fn quoted_end(chars: &[char], mut k: usize, quote: char) -> usize {
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 2,
            c if c == quote => return k + 1,
            _ => k += 1,
        }
    }
    chars.len()
}

/// Past the `"` and `hashes` hashes closing a raw string whose body starts
/// at `k`.
fn raw_end(chars: &[char], mut k: usize, hashes: usize) -> usize {
    while k < chars.len() {
        if chars[k] == '"'
            && chars[k + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return k + 1 + hashes;
        }
        k += 1;
    }
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn spacing_between_tokens_does_not_matter() {
        assert_eq!(
            normalise("| i : & Input | i . command . starts_with (\"ls\")"),
            normalise("|i: &Input| i.command.starts_with(\"ls\")"),
        );
        assert_eq!(normalise("! is_short (i)"), "!is_short(i)");
    }

    #[test]
    fn spacing_between_words_is_kept_as_one_space() {
        assert_eq!(normalise("x  as\n u8"), "x as u8");
        assert_ne!(normalise("x as u8"), normalise("xas u8"));
        assert_eq!(normalise("move | i | i"), "move|i|i");
    }

    #[test]
    fn literal_contents_are_kept_verbatim() {
        assert_ne!(
            normalise(r#"|i: &I| i.mode == "read only""#),
            normalise(r#"|i: &I| i.mode == "readonly""#),
        );
        assert_eq!(normalise(r#"f ( "a  \" b" )"#), r#"f("a  \" b")"#);
        assert_eq!(
            normalise(r##"f ( r#"a " b"# , b"x y" )"##),
            r##"f(r#"a " b"#,b"x y")"##
        );
        assert_eq!(normalise("c == ' '"), "c==' '");
        assert_ne!(normalise("c == ' '"), normalise("c == ''"));
        assert_eq!(normalise(r"c == '\'' || c == 'x'"), r"c=='\''||c=='x'");
    }

    #[test]
    fn lifetimes_are_not_character_literals() {
        assert_eq!(
            normalise("|i: &'static str| i . len () > 0"),
            "|i:&'static str|i.len()>0"
        );
    }

    #[test]
    fn an_unterminated_literal_keeps_the_rest_verbatim() {
        assert_eq!(normalise("f(\"a  b"), "f(\"a  b");
        assert_eq!(normalise("r#\"a  b"), "r#\"a  b");
    }
}
