//! Parsed templates kept per process. A step renders the same templates for every job it runs, and
//! parsing them (Liquid's pest grammar) was most of a render: 1.5% of the machine's CPU in the trigger
//! benchmark, about 7% of Herald's own (perf, docs/performance.md). A template is parsed the first
//! time its text is seen; one that does not parse is not kept (its job fails, and a retry parses again).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

/// Templates kept, by their text.
static PARSED: LazyLock<RwLock<Parsed>> = LazyLock::new(RwLock::default);

#[derive(Default)]
struct Parsed {
    templates: HashMap<String, Arc<liquid::Template>>,
    /// The length of every template kept, the measure of the cache's size.
    bytes: usize,
}

/// Most template text kept; past it the cache starts again empty (templates are read from workflows,
/// a few kilobytes each, and a process runs a bounded set of them).
const CAPACITY_BYTES: usize = 8 << 20;

/// `template` parsed by `parse`, once per process for a template that parses.
pub(super) fn parsed(
    template: &str,
    parse: impl FnOnce(&str) -> Result<liquid::Template, liquid::Error>,
) -> Result<Arc<liquid::Template>, liquid::Error> {
    if let Some(found) = PARSED.read().expect("the template cache is never poisoned").templates.get(template) {
        return Ok(found.clone());
    }
    let parsed = Arc::new(parse(template)?);
    let mut kept = PARSED.write().expect("the template cache is never poisoned");
    if kept.bytes + template.len() > CAPACITY_BYTES {
        *kept = Parsed::default();
    }
    if kept.templates.insert(template.to_owned(), parsed.clone()).is_none() {
        kept.bytes += template.len();
    }
    Ok(parsed)
}
