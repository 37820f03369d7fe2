//! Example tools (being written).
