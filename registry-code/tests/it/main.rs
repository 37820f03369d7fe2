//! Code mode, end to end: programs the way models write them, through a
//! real executor, against the rules a direct call meets.

mod events;
mod hostile;
mod programs;
mod replay;
mod support;
