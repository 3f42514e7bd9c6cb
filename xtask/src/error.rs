//! What stops a task: a program that would not start or failed, a file that could not be
//! read or written, or a check of the task's own (a budget missed, a table that does not
//! parse), each said with what it was about.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitStatus;

/// Why a task stopped.
#[derive(Debug)]
pub enum Error {
    /// A program could not be started (not installed, not executable).
    Start {
        /// The command line.
        command: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A program ran and failed.
    Failed {
        /// The command line.
        command: String,
        /// How it ended.
        status: ExitStatus,
    },
    /// A file or folder could not be read or written.
    File {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// One of the task's own checks failed, said in words.
    Task(String),
}

impl fmt::Display for Error {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Start { command, source } => {
                write!(formatter, "cannot start {command}: {source}")
            }
            Error::Failed { command, status } => write!(formatter, "{command} failed ({status})"),
            Error::File { path, source } => write!(formatter, "{}: {source}", path.display()),
            Error::Task(message) => formatter.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Start { source, .. } | Error::File { source, .. } => Some(source),
            Error::Failed { .. } | Error::Task(_) => None,
        }
    }
}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::Task(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::Task(message.to_owned())
    }
}

/// For `map_err`: an IO error about `path`.
pub fn file(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::File { path, source }
}
