//! Store rules, backend by backend.
