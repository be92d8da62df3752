//! GTP v2 front end: preprocessing, nom parsing, the command table, execution and the
//! stdin/stdout loop.

pub mod analysis;
pub mod client;
pub mod command;
pub mod error;
pub mod exec;
pub mod front;
pub mod parse;
pub mod preprocess;
pub mod serve;

pub use command::{
    is_known_command, list_commands, parse_command, Command, CommandSpec, ParseError, ParsedLine,
    Status, SyntaxError, COMMANDS,
};
pub use error::GtpError;
pub use front::{Front, FrontOptions};
pub use parse::{GtpMove, Vertex};
pub use preprocess::preprocess;
pub use serve::{serve, serve_stdio, Context, Executor, Reply};
