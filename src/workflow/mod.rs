//! The workflow model shared by the API side (`domain::workflows`, the activity API) and the engine:
//! step kinds and job statuses, typed step controls, step filters, digest window rules, step metadata
//! and the step snapshot a job carries. It sits at the bottom of the dependency graph: it imports no
//! other Herald module, and its types map to the text and jsonb columns that already hold them, so
//! rows stored before it read unchanged.

mod columns;
pub mod controls;
pub mod filters;
mod kind;
pub mod local_time;
mod metadata;
mod snapshot;
mod status;
pub mod window;

pub use columns::UnknownVariant;
pub use controls::{StepControls, TimeSpan, TimeUnit};
pub use filters::{StepFilter, StepFilters};
pub use kind::{JobKind, StepKind, INTERNAL_PROVIDER};
pub use metadata::{MetadataForm, StepMetadata};
pub use snapshot::{SharedSnapshot, StepSnapshot};
pub use status::JobStatus;
pub use window::WindowRule;
