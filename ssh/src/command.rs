//! A command for the node's shell, kept as words and quoted only when rendered.

use std::fmt;

use crate::quote;

/// A command for the node's shell, kept as words until it is rendered with every word quoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteCommand {
    words: Vec<String>,
}

impl RemoteCommand {
    /// A command of the given words (program first).
    pub fn new(words: Vec<String>) -> Self {
        RemoteCommand { words }
    }

    /// The words, unquoted.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The command line for the remote shell, every word quoted.
    pub fn to_shell(&self) -> String {
        quote::join(&self.words)
    }
}

impl fmt::Display for RemoteCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_shell())
    }
}
