//! GTP v2 front end: preprocessing, nom parsing, the command table, execution and the
//! stdin/stdout loop.

pub mod command;
pub mod error;
pub mod parse;
pub mod preprocess;
