//! SGF bridge over the sgf-parse crate (to be written)
