//! What a pack did differently than the tree asked, without failing.

use std::fmt;

/// One thing the image stores differently from the tree. Rock Ridge always keeps the full name;
/// these are about the Joliet tree that Windows-style readers see, or other writer notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackWarning {
    /// The Joliet name was cut to 64 characters.
    JolietNameCut {
        /// The entry's path in the tree.
        path: String,
        /// The name the Joliet tree carries.
        joliet_name: String,
    },
    /// Characters Joliet forbids (such as `:`) became `_` in the Joliet name.
    JolietNameChanged {
        /// The entry's path in the tree.
        path: String,
        /// The name the Joliet tree carries.
        joliet_name: String,
    },
    /// Anything else the writer reported.
    Other {
        /// The writer's words.
        message: String,
    },
}

impl fmt::Display for PackWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::JolietNameCut { path, joliet_name } => write!(
                f,
                "{path}: the Joliet name is cut to 64 characters as {joliet_name:?} \
                 (Rock Ridge keeps the full name)"
            ),
            Self::JolietNameChanged { path, joliet_name } => write!(
                f,
                "{path}: characters Joliet forbids become _ in the Joliet name {joliet_name:?} \
                 (Rock Ridge keeps the full name)"
            ),
            Self::Other { message } => f.write_str(message),
        }
    }
}
