//! The delivery engine: what runs a triggered workflow's steps. So far: step filter evaluation and
//! Liquid rendering of step controls; the trigger, the job queue and the workers come with the
//! engine issue.

pub mod filters;
pub mod render;
