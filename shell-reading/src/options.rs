//! A getopt model: which words of a command line are options, which are
//! their arguments and which are operands.
//!
//! It follows GNU `getopt_long`: short options cluster (`-qf` is `-q -f`),
//! a short option's argument may be glued (`-n5`) or the next word, a long
//! option may be abbreviated to any prefix that names one option only
//! (`--out` is `--output`), `--` ends the options, and (for programs that
//! permute) options may follow operands. A table must list every option the
//! program has, allowed or not: resolving an abbreviation against a partial
//! table could land on a different option than the program would.

use crate::syntax::Word;

/// How an option takes an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    /// Never.
    No,
    /// Always: glued or the next word.
    Required,
    /// Only glued (`-ifoo`, `--color=auto`).
    Optional,
}

/// One option of a program.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opt {
    /// The short name, if any.
    pub short: Option<char>,
    /// The long name without `--`, if any.
    pub long: Option<&'static str>,
    /// How it takes an argument.
    pub arg: Arg,
    /// Whether the read-only classification accepts it.
    pub reads_only: bool,
}

/// A reading option: `short` (or `' '` for none), `long` (or `""`).
pub(crate) const fn ok(short: char, long: &'static str, arg: Arg) -> Opt {
    opt(short, long, arg, true)
}

/// An option that writes, runs programs or is otherwise not read-only.
pub(crate) const fn bad(short: char, long: &'static str, arg: Arg) -> Opt {
    opt(short, long, arg, false)
}

const fn opt(short: char, long: &'static str, arg: Arg, reads_only: bool) -> Opt {
    Opt {
        short: if short == ' ' { None } else { Some(short) },
        long: if long.is_empty() { None } else { Some(long) },
        arg,
        reads_only,
    }
}

/// Every option of one program.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    /// The options.
    pub options: &'static [Opt],
    /// Options may come after operands (GNU's default). When false the
    /// first operand ends the options, as for a wrapper whose first operand
    /// is the program it runs.
    pub permute: bool,
    /// `-NUM` is an option (`head -5`, `grep -3`).
    pub numeric: bool,
    /// Long options may be abbreviated to a unique prefix. Only sound when
    /// [`options`](Self::options) is the program's complete list.
    pub abbreviations: bool,
}

/// One parsed element of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item<'w> {
    /// An option, with its argument if it took one.
    Opt {
        /// The option's entry in the table.
        opt: OptRef,
        /// Its argument.
        value: Option<String>,
    },
    /// `-NUM`.
    Numeric,
    /// An operand.
    Operand(&'w Word),
}

/// An option of a table, by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OptRef(pub usize);

/// Why a command line does not parse against a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OptError {
    /// An option the table does not have.
    Unknown(String),
    /// A long option prefix that names several options.
    Ambiguous(String),
    /// An option missing its argument, or given one it does not take.
    BadArgument(String),
    /// A word whose text only the shell knows, where an option could be.
    Dynamic,
}

impl Table {
    /// The option at `r`.
    pub(crate) fn get(&self, r: OptRef) -> &Opt {
        &self.options[r.0]
    }

    /// Whether `r` is the option with this long name (or short name when
    /// it has no long one).
    pub(crate) fn is(&self, r: OptRef, name: &str) -> bool {
        let opt = self.get(r);
        opt.long == Some(name)
            || (opt.long.is_none() && opt.short.is_some_and(|s| name.chars().eq([s])))
    }

    fn short(&self, c: char) -> Option<OptRef> {
        self.options
            .iter()
            .position(|o| o.short == Some(c))
            .map(OptRef)
    }

    fn long(&self, name: &str) -> Result<OptRef, OptError> {
        if let Some(i) = self.options.iter().position(|o| o.long == Some(name)) {
            return Ok(OptRef(i));
        }
        if !self.abbreviations {
            return Err(OptError::Unknown(format!("--{name}")));
        }
        let mut found = None;
        for (i, o) in self.options.iter().enumerate() {
            if o.long.is_some_and(|l| l.starts_with(name)) {
                if found.is_some() {
                    return Err(OptError::Ambiguous(format!("--{name}")));
                }
                found = Some(OptRef(i));
            }
        }
        found.ok_or_else(|| OptError::Unknown(format!("--{name}")))
    }

    /// Parses `words` (the arguments, program excluded). With `permute`
    /// false, parsing stops at the first operand and the rest are returned
    /// as the remainder (the index of the first unparsed word).
    pub(crate) fn parse<'w>(&self, words: &'w [Word]) -> Result<(Vec<Item<'w>>, usize), OptError> {
        let mut items = Vec::new();
        let mut i = 0;
        let mut only_operands = false;
        while i < words.len() {
            let word = &words[i];
            i += 1;
            let text = word.text.as_str();
            if only_operands || !text.starts_with('-') || text == "-" {
                if word.dynamic && !only_operands {
                    // `$x` may expand to an option.
                    return Err(OptError::Dynamic);
                }
                if !self.permute {
                    return Ok((items, i - 1));
                }
                items.push(Item::Operand(word));
                continue;
            }
            if word.dynamic {
                return Err(OptError::Dynamic);
            }
            if text == "--" {
                only_operands = true;
                if !self.permute {
                    return Ok((items, i));
                }
                continue;
            }
            if let Some(long) = text.strip_prefix("--") {
                let (name, glued) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_owned())),
                    None => (long, None),
                };
                let r = self.long(name)?;
                let value = match (self.get(r).arg, glued) {
                    (Arg::No, Some(_)) => return Err(OptError::BadArgument(text.to_owned())),
                    (Arg::No | Arg::Optional, None) => None,
                    (Arg::Required, None) => {
                        let next = words
                            .get(i)
                            .ok_or_else(|| OptError::BadArgument(text.to_owned()))?;
                        i += 1;
                        if next.dynamic {
                            return Err(OptError::Dynamic);
                        }
                        Some(next.text.clone())
                    }
                    (_, Some(value)) => Some(value),
                };
                items.push(Item::Opt { opt: r, value });
                continue;
            }
            let cluster = &text[1..];
            if self.numeric && cluster.chars().all(|c| c.is_ascii_digit()) {
                items.push(Item::Numeric);
                continue;
            }
            for (at, c) in cluster.char_indices() {
                let r = self
                    .short(c)
                    .ok_or_else(|| OptError::Unknown(format!("-{c}")))?;
                let rest = &cluster[at + c.len_utf8()..];
                match self.get(r).arg {
                    Arg::No => items.push(Item::Opt {
                        opt: r,
                        value: None,
                    }),
                    Arg::Optional => {
                        let value = (!rest.is_empty()).then(|| rest.to_owned());
                        items.push(Item::Opt { opt: r, value });
                        break;
                    }
                    Arg::Required => {
                        let value = if rest.is_empty() {
                            let next = words
                                .get(i)
                                .ok_or_else(|| OptError::BadArgument(format!("-{c}")))?;
                            i += 1;
                            if next.dynamic {
                                return Err(OptError::Dynamic);
                            }
                            next.text.clone()
                        } else {
                            rest.to_owned()
                        };
                        items.push(Item::Opt {
                            opt: r,
                            value: Some(value),
                        });
                        break;
                    }
                }
            }
        }
        Ok((items, words.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Arg::*;

    const TABLE: Table = Table {
        options: &[
            ok('u', "unique", No),
            bad('o', "output", Required),
            ok('k', "key", Required),
            ok(' ', "output-delimiter", Required),
            ok('i', "in-place", Optional),
        ],
        permute: true,
        numeric: true,
        abbreviations: true,
    };

    fn words(text: &[&str]) -> Vec<Word> {
        text.iter().map(|t| Word::literal(t)).collect()
    }

    fn names(text: &[&str]) -> Result<Vec<String>, OptError> {
        let words = words(text);
        let (items, _) = TABLE.parse(&words)?;
        Ok(items
            .into_iter()
            .map(|item| match item {
                Item::Opt { opt, value } => {
                    let o = TABLE.get(opt);
                    format!("{}={}", o.long.unwrap_or("?"), value.unwrap_or_default())
                }
                Item::Numeric => "NUM".to_owned(),
                Item::Operand(w) => w.text.clone(),
            })
            .collect())
    }

    #[test]
    fn clusters_split_and_arguments_are_consumed() {
        assert_eq!(
            names(&["-uo", "x", "in"]).unwrap(),
            ["unique=", "output=x", "in"]
        );
        assert_eq!(names(&["-kou"]).unwrap(), ["key=ou"]);
        assert_eq!(names(&["-k", "-o"]).unwrap(), ["key=-o"]);
        assert_eq!(names(&["-i", "x"]).unwrap(), ["in-place=", "x"]);
        assert_eq!(names(&["-5", "a", "--", "-o"]).unwrap(), ["NUM", "a", "-o"]);
    }

    #[test]
    fn long_options_resolve_by_unique_prefix() {
        assert_eq!(names(&["--output=x"]).unwrap(), ["output=x"]);
        assert_eq!(names(&["--output", "x"]).unwrap(), ["output=x"]);
        assert_eq!(names(&["--un"]).unwrap(), ["unique="]);
        assert_eq!(names(&["--output-d=,"]).unwrap(), ["output-delimiter=,"]);
        assert_eq!(
            names(&["--out=x"]),
            Err(OptError::Ambiguous("--out".into()))
        );
        assert_eq!(names(&["--nope"]), Err(OptError::Unknown("--nope".into())));
        assert_eq!(
            names(&["--unique=1"]),
            Err(OptError::BadArgument("--unique=1".into()))
        );
        assert_eq!(names(&["-o"]), Err(OptError::BadArgument("-o".into())));
    }

    #[test]
    fn without_permutation_the_first_operand_ends_options() {
        let table = Table {
            permute: false,
            ..TABLE
        };
        let words = words(&["-u", "rm", "-o"]);
        let (items, rest) = table.parse(&words).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(rest, 1);
    }

    #[test]
    fn a_dynamic_word_where_an_option_could_be_is_refused() {
        let mut ws = words(&["a", "x"]);
        ws[1].dynamic = true;
        assert_eq!(TABLE.parse(&ws), Err(OptError::Dynamic));
    }
}
