//! The syntax of a command line: the tree ([`ast`]) and the parser that
//! builds it ([`parse()`]).

pub mod ast;
pub mod parse;

pub use ast::{
    AndOr, Command, Compound, Connector, ListItem, Pipeline, Redirect, RedirectKind, Script,
    SimpleCommand, Word,
};
pub use parse::{MAX_DEPTH, Unreadable, parse};
