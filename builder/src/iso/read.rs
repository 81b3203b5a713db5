//! Reading an image back.
