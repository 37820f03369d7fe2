//! The parser: tokens to a flat list of simple commands.
//!
//! The only grammar modelled is the flat one: simple commands (assignments,
//! words, redirections), optionally negated with `!`, joined by `|`, `&&`,
//! `||`, `;`, `&` and newlines. Reserved words (`if`, `for`, `{`, ...)
//! start compound commands, which are [`Unsupported`]; so are syntax
//! errors such as an operator with no command before it. The parser is a
//! single loop over the tokens: no recursion, linear cost.

use super::lex::{Op, Redirect, Token, Unsupported, Word, tokenize};

/// One simple command.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// `NAME=value` words before the program.
    pub assignments: Vec<Word>,
    /// The program and its arguments.
    pub words: Vec<Word>,
    /// Redirections, wherever they appeared (before, between or after the
    /// words).
    pub redirects: Vec<Redirect>,
}

/// A command line: simple commands with the operator that follows each
/// (`None` after the last one when nothing follows it).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    /// The commands in order, each with the operator after it.
    pub commands: Vec<(SimpleCommand, Option<Op>)>,
}

/// Words that start a compound command or a function definition when they
/// come where a program name would.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "in", "{", "}", "[[", "]]", "function", "select", "coproc",
];

/// Parses `text` into a [`Script`], or says what it does not model.
pub(crate) fn parse(text: &str) -> Result<Script, Unsupported> {
    let mut script = Script::default();
    let mut current = SimpleCommand::default();
    // Whether the current command has any token yet (a `!` counts).
    let mut started = false;
    // After `|`, `&&` or `||` a command must follow (newlines may come
    // first).
    let mut needs_command = false;
    for token in tokenize(text)? {
        match token {
            Token::Word(word) => {
                let command_position = current.words.is_empty();
                if command_position
                    && word.plain
                    && word.text == "!"
                    && current.assignments.is_empty()
                {
                    if started {
                        return Err(Unsupported("`!` inside a command"));
                    }
                    started = true;
                    continue;
                }
                if command_position && word.plain && RESERVED.contains(&word.text.as_str()) {
                    return Err(Unsupported("a compound command (reserved word)"));
                }
                if command_position && word.assignment {
                    current.assignments.push(word);
                } else {
                    current.words.push(word);
                }
                started = true;
            }
            Token::Redirect(redirect) => {
                current.redirects.push(redirect);
                started = true;
            }
            Token::Op(Op::Newline) if !started => {
                // A blank line, or a line break after `|`, `&&`, `||`.
            }
            Token::Op(op) => {
                if !started || is_empty(&current) {
                    return Err(Unsupported("an operator with no command before it"));
                }
                script
                    .commands
                    .push((std::mem::take(&mut current), Some(op)));
                started = false;
                needs_command = matches!(op, Op::Pipe | Op::And | Op::Or);
            }
        }
        if started {
            needs_command = false;
        }
    }
    if needs_command {
        return Err(Unsupported("a `|`, `&&` or `||` with no command after it"));
    }
    if started {
        if is_empty(&current) {
            return Err(Unsupported("a `!` with no command"));
        }
        script.commands.push((current, None));
    }
    Ok(script)
}

fn is_empty(command: &SimpleCommand) -> bool {
    command.words.is_empty() && command.assignments.is_empty() && command.redirects.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs(text: &str) -> Vec<String> {
        parse(text)
            .expect(text)
            .commands
            .iter()
            .map(|(c, _)| c.words.first().map(|w| w.text.clone()).unwrap_or_default())
            .collect()
    }

    #[test]
    fn commands_split_on_every_operator() {
        assert_eq!(
            programs("a | b && c || d; e & f\ng"),
            ["a", "b", "c", "d", "e", "f", "g"]
        );
        assert_eq!(programs("a &&\n\n b"), ["a", "b"]);
        assert_eq!(programs("\n a;\n"), ["a"]);
    }

    #[test]
    fn leading_redirections_and_assignments_are_not_the_program() {
        let script = parse("2>/dev/null X=1 rm>x -f f").expect("parses");
        let (command, _) = &script.commands[0];
        assert_eq!(command.assignments.len(), 1);
        assert_eq!(
            command
                .words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>(),
            ["rm", "-f", "f"]
        );
        assert_eq!(command.redirects.len(), 2);
        // After the program, `X=1` is an argument.
        let script = parse("env X=1").expect("parses");
        assert_eq!(script.commands[0].0.words.len(), 2);
    }

    #[test]
    fn negation_is_allowed_once_at_the_start() {
        assert_eq!(programs("! grep x f"), ["grep"]);
        assert!(parse("ls !").is_ok());
        assert!(parse("! ! ls").is_err());
        assert!(parse("!").is_err());
    }

    #[test]
    fn compound_commands_and_syntax_errors_are_refused() {
        for text in [
            "if true; then rm x; fi",
            "{ rm x; }",
            "for f in a; do rm $f; done",
            "while :; do :; done",
            "function f { rm x; }",
            "; ls",
            "ls ;; rm",
            "ls &&",
            "ls |",
            "| ls",
            "ls && && rm",
            "[[ -f x ]]",
        ] {
            assert!(parse(text).is_err(), "{text:?} parsed");
        }
        // A reserved word is only reserved where a program would be.
        assert_eq!(programs("echo if then"), ["echo"]);
        assert_eq!(programs("'if' x"), ["if"]);
    }
}
