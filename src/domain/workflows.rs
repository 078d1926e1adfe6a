//! Business rules of workflows (v2).
