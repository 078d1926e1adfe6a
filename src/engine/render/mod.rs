//! Liquid rendering of workflow step controls (in-app subject/body/avatar/actions, email subject/body, SMS body,
//! ...).
//!
//! Templates see five root variables: `payload` (the trigger payload), `subscriber` (API JSON field names such
//! as `firstName`), `actor`, `tenant` and `step` (digest data such as `step.events`). The standard Liquid tags
//! and filters are available (`upcase`, `default`, `date`, `size`, `join`, `for`, `if`, ...).
//!
//! # Semantics
//!
//! * Undefined variables are lenient, like liquidjs with `strictVariables: false` (what the reference service
//!   uses): a missing root, key, index or nested path is `nil`, so `{{ payload.missing }}` renders as an empty
//!   string, `{{ payload.missing | default: 'x' }}` as `x`, `{% if payload.missing %}` takes the false branch
//!   and `{% for e in payload.missing %}` runs zero times. liquid-rust has no option for this; it comes from
//!   two pieces here: the JSON context is exposed through our own value view (`Lenient`) whose objects (and
//!   nil) answer every key, nil when absent; and `for`/`tablerow` run under a `LenientRuntime` that hands
//!   loop items out as that view instead of Liquid's strict copies, so `{{ event.payload.missing }}` inside
//!   (nested) loops is empty too. Not covered: a value copied with `assign` or produced by a filter is a plain
//!   Liquid value, and a missing key below it is an error (`{% assign e = step.events | first %}{{ e.nope }}`).
//! * The `date` filter also accepts RFC 3339 input (`2024-03-01T10:00:00Z`), besides Liquid's own formats.
//! * JSON integers render without a fractional part (`3`, not `3.0`); other numbers as floats.
//! * Strings without `{{` or `{%` are returned as they are, without parsing.
//! * Syntax errors, unknown filters or tags and failing filters are a [`RenderError`] that names the control
//!   path (`primaryAction.redirect.url`, array elements as `[0]`) and carries Liquid's message.

mod parsed;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use liquid::model::{ArrayView, DisplayCow, KStringCow, ScalarCow, State, Value as LiquidValue, ValueCow};
use liquid::{ObjectView, ValueView};
use liquid_core::parser::{BlockReflection, Filter, FilterArguments, FilterReflection, ParseBlock, ParseFilter};
use liquid_core::runtime::{PartialStore, Registers, Renderable, Runtime};
use liquid_core::{Language, TagBlock, TagTokenIter};
use liquid_lib::stdlib;
use serde_json::Value;

use parsed::parsed;

/// The variables a template can use. Absent parts are `Value::Null` (which renders as nil).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderContext {
    pub payload: Value,
    pub subscriber: Value,
    pub actor: Value,
    pub tenant: Value,
    pub step: Value,
}

/// Which phase of Liquid failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderErrorKind {
    /// The template does not parse (syntax error, unknown tag or filter).
    Parse,
    /// The template parsed but failed while rendering (e.g. a filter rejected its input).
    Render,
}

impl fmt::Display for RenderErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Parse => "invalid Liquid template",
            Self::Render => "Liquid rendering failed",
        })
    }
}

/// A template that could not be rendered. The message is written into the step's execution detail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{kind}: {message}", location(.path))]
pub struct RenderError {
    /// The control path (`primaryAction.redirect.url`, `actions[0].label`); empty for [`render_text`].
    pub path: String,
    pub kind: RenderErrorKind,
    /// Liquid's own message, on one line.
    pub message: String,
}

fn location(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("control `{path}`: ")
    }
}

static PARSER: LazyLock<liquid::Parser> = LazyLock::new(|| {
    liquid::ParserBuilder::with_stdlib()
        .block(LenientBlock(stdlib::ForBlock))
        .block(LenientBlock(stdlib::TableRowBlock))
        .filter(Rfc3339Date(stdlib::Date))
        .build()
        .expect("the Liquid standard library parser builds")
});

/// Renders one template against the context.
pub fn render_text(template: &str, context: &RenderContext) -> Result<String, RenderError> {
    if !needs_rendering(template) {
        return Ok(template.to_owned());
    }
    render_with(template, &globals(context), "")
}

/// Renders every string inside `controls` (objects and arrays recursively); other values are kept as they are.
pub fn render_controls(controls: &Value, context: &RenderContext) -> Result<Value, RenderError> {
    let mut globals = None;
    let mut path = String::new();
    render_value(controls, context, &mut globals, &mut path)
}

fn render_value(
    value: &Value,
    context: &RenderContext,
    globals: &mut Option<Lenient>,
    path: &mut String,
) -> Result<Value, RenderError> {
    match value {
        Value::String(template) if needs_rendering(template) => {
            let globals = globals.get_or_insert_with(|| self::globals(context));
            render_with(template, globals, path).map(Value::String)
        }
        Value::Array(items) => {
            let mut rendered = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{index}]"));
                rendered.push(render_value(item, context, globals, path)?);
                path.truncate(len);
            }
            Ok(Value::Array(rendered))
        }
        Value::Object(map) => {
            let mut rendered = serde_json::Map::with_capacity(map.len());
            for (key, item) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                rendered.insert(key.clone(), render_value(item, context, globals, path)?);
                path.truncate(len);
            }
            Ok(Value::Object(rendered))
        }
        other => Ok(other.clone()),
    }
}

fn needs_rendering(template: &str) -> bool {
    template.contains("{{") || template.contains("{%")
}

fn render_with(template: &str, globals: &Lenient, path: &str) -> Result<String, RenderError> {
    let error =
        |kind, err: liquid::Error| RenderError { path: path.to_owned(), kind, message: one_line(&err.to_string()) };
    let parsed = parsed(template, |template| PARSER.parse(template)).map_err(|e| error(RenderErrorKind::Parse, e))?;
    parsed.render(globals).map_err(|e| error(RenderErrorKind::Render, e))
}

/// Liquid's messages span several lines (message, then `with:` context lines); join them for a detail line.
fn one_line(message: &str) -> String {
    message.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

fn globals(context: &RenderContext) -> Lenient {
    let roots = [
        ("payload", &context.payload),
        ("subscriber", &context.subscriber),
        ("actor", &context.actor),
        ("tenant", &context.tenant),
        ("step", &context.step),
    ];
    Lenient::Object(roots.into_iter().map(|(k, v)| (k.to_owned(), Lenient::from_json(v))).collect())
}

/// A JSON value as Liquid sees it, with lenient lookups: objects (and nil) answer every key, `nil` when absent.
#[derive(Debug, Clone)]
enum Lenient {
    Nil,
    Scalar(LiquidValue),
    Array(Vec<Lenient>),
    Object(BTreeMap<String, Lenient>),
}

static NIL: Lenient = Lenient::Nil;
static LIQUID_NIL: LiquidValue = LiquidValue::Nil;

impl Lenient {
    fn from_json(value: &Value) -> Self {
        match value {
            Value::Null => Self::Nil,
            Value::Bool(b) => Self::Scalar(LiquidValue::scalar(*b)),
            Value::Number(n) => Self::Scalar(match n.as_i64() {
                Some(i) => LiquidValue::scalar(i),
                None => LiquidValue::scalar(n.as_f64().unwrap_or(f64::NAN)),
            }),
            Value::String(s) => Self::Scalar(LiquidValue::scalar(s.clone())),
            Value::Array(items) => Self::Array(items.iter().map(Self::from_json).collect()),
            Value::Object(map) => Self::Object(map.iter().map(|(k, v)| (k.clone(), Self::from_json(v))).collect()),
        }
    }

    fn element(&self, index: i64) -> Option<&Lenient> {
        let Self::Array(items) = self else { return None };
        let index = if index < 0 { index + items.len() as i64 } else { index };
        usize::try_from(index).ok().and_then(|i| <[Lenient]>::get(items, i))
    }

    /// The plain Liquid value for nil and scalars (arrays and objects are converted on demand).
    fn leaf(&self) -> Option<&LiquidValue> {
        match self {
            Self::Nil => Some(&LIQUID_NIL),
            Self::Scalar(v) => Some(v),
            Self::Array(_) | Self::Object(_) => None,
        }
    }
}

impl ValueView for Lenient {
    fn as_debug(&self) -> &dyn fmt::Debug {
        self
    }

    fn render(&self) -> DisplayCow<'_> {
        match self.leaf() {
            Some(v) => v.render(),
            None => DisplayCow::Owned(Box::new(self.to_value().render().to_string())),
        }
    }

    fn source(&self) -> DisplayCow<'_> {
        match self.leaf() {
            Some(v) => v.source(),
            None => DisplayCow::Owned(Box::new(self.to_value().source().to_string())),
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Self::Nil => "nil",
            Self::Scalar(v) => v.type_name(),
            Self::Array(_) => "array",
            Self::Object(_) => "object",
        }
    }

    fn query_state(&self, state: State) -> bool {
        match self {
            Self::Nil => LIQUID_NIL.query_state(state),
            Self::Scalar(v) => v.query_state(state),
            Self::Array(items) => match state {
                State::Truthy => true,
                State::DefaultValue | State::Empty | State::Blank => items.is_empty(),
            },
            Self::Object(map) => match state {
                State::Truthy => true,
                State::DefaultValue | State::Empty | State::Blank => map.is_empty(),
            },
        }
    }

    fn to_kstr(&self) -> KStringCow<'_> {
        match self.leaf() {
            Some(v) => v.to_kstr(),
            None => KStringCow::from_string(self.render().to_string()),
        }
    }

    fn to_value(&self) -> LiquidValue {
        match self {
            Self::Nil => LiquidValue::Nil,
            Self::Scalar(v) => v.clone(),
            Self::Array(items) => LiquidValue::Array(items.iter().map(ValueView::to_value).collect()),
            Self::Object(map) => {
                LiquidValue::Object(map.iter().map(|(k, v)| (k.clone().into(), v.to_value())).collect())
            }
        }
    }

    fn as_scalar(&self) -> Option<ScalarCow<'_>> {
        match self {
            Self::Scalar(v) => v.as_scalar(),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&dyn ArrayView> {
        match self {
            Self::Array(_) => Some(self),
            _ => None,
        }
    }

    /// Nil is also an empty object, so a path through a missing key (`payload.a.b`) resolves to nil.
    fn as_object(&self) -> Option<&dyn ObjectView> {
        match self {
            Self::Object(_) | Self::Nil => Some(self),
            _ => None,
        }
    }

    fn is_nil(&self) -> bool {
        matches!(self, Self::Nil)
    }
}

impl ArrayView for Lenient {
    fn as_value(&self) -> &dyn ValueView {
        self
    }

    fn size(&self) -> i64 {
        match self {
            Self::Array(items) => items.len() as i64,
            _ => 0,
        }
    }

    fn values<'k>(&'k self) -> Box<dyn Iterator<Item = &'k dyn ValueView> + 'k> {
        match self {
            Self::Array(items) => Box::new(items.iter().map(|v| v as &dyn ValueView)),
            _ => Box::new(std::iter::empty()),
        }
    }

    fn contains_key(&self, index: i64) -> bool {
        self.element(index).is_some()
    }

    /// Negative indexes count from the end, as in Liquid; out of range is nil.
    fn get(&self, index: i64) -> Option<&dyn ValueView> {
        Some(self.element(index).unwrap_or(&NIL))
    }
}

impl ObjectView for Lenient {
    fn as_value(&self) -> &dyn ValueView {
        self
    }

    fn size(&self) -> i64 {
        match self {
            Self::Object(map) => map.len() as i64,
            _ => 0,
        }
    }

    fn keys<'k>(&'k self) -> Box<dyn Iterator<Item = KStringCow<'k>> + 'k> {
        match self {
            Self::Object(map) => Box::new(map.keys().map(|k| KStringCow::from_ref(k))),
            _ => Box::new(std::iter::empty()),
        }
    }

    fn values<'k>(&'k self) -> Box<dyn Iterator<Item = &'k dyn ValueView> + 'k> {
        match self {
            Self::Object(map) => Box::new(map.values().map(|v| v as &dyn ValueView)),
            _ => Box::new(std::iter::empty()),
        }
    }

    fn iter<'k>(&'k self) -> Box<dyn Iterator<Item = (KStringCow<'k>, &'k dyn ValueView)> + 'k> {
        match self {
            Self::Object(map) => Box::new(map.iter().map(|(k, v)| (KStringCow::from_ref(k), v as &dyn ValueView))),
            _ => Box::new(std::iter::empty()),
        }
    }

    /// Every key is "present" (missing ones are nil): the runtime asks this before looking a variable up, and
    /// answering `false` would make an unknown root variable an error.
    fn contains_key(&self, _index: &str) -> bool {
        true
    }

    /// A missing key is nil, except `size`, which Liquid then answers with the number of entries.
    fn get<'s>(&'s self, index: &str) -> Option<&'s dyn ValueView> {
        let found = match self {
            Self::Object(map) => map.get(index),
            _ => None,
        };
        match found {
            Some(value) => Some(value),
            None if index == "size" => None,
            None => Some(&NIL),
        }
    }
}

/// Wraps a block tag (`for`, `tablerow`) so that it runs under a `LenientRuntime`. Liquid's runtime copies
/// every looked-up value into its own (strict) model; the lenient runtime hands out the [`Lenient`] view itself
/// instead, so loop items keep answering missing keys with nil (`{{ event.payload.missing }}` in a loop).
#[derive(Clone)]
struct LenientBlock<B>(B);

impl<B: ParseBlock + Clone + 'static> ParseBlock for LenientBlock<B> {
    fn parse(
        &self,
        arguments: TagTokenIter<'_>,
        block: TagBlock<'_, '_>,
        options: &Language,
    ) -> liquid_core::Result<Box<dyn Renderable>> {
        let inner = self.0.parse(arguments, block, options)?;
        Ok(Box::new(LenientScope(inner)))
    }

    fn reflection(&self) -> &dyn BlockReflection {
        self.0.reflection()
    }
}

#[derive(Debug)]
struct LenientScope(Box<dyn Renderable>);

impl Renderable for LenientScope {
    fn render_to(&self, writer: &mut dyn std::io::Write, runtime: &dyn Runtime) -> liquid_core::Result<()> {
        self.0.render_to(writer, &LenientRuntime(runtime))
    }
}

/// Delegates to the enclosing runtime, except that a lookup borrows the value (see [`LenientBlock`]) and an
/// unknown variable is nil instead of an error.
struct LenientRuntime<'r>(&'r dyn Runtime);

impl Runtime for LenientRuntime<'_> {
    fn partials(&self) -> &dyn PartialStore {
        self.0.partials()
    }

    fn name(&self) -> Option<liquid::model::KStringRef<'_>> {
        self.0.name()
    }

    fn roots(&self) -> std::collections::BTreeSet<KStringCow<'_>> {
        self.0.roots()
    }

    fn try_get(&self, path: &[ScalarCow<'_>]) -> Option<ValueCow<'_>> {
        self.0.try_get(path)
    }

    fn get(&self, path: &[ScalarCow<'_>]) -> liquid_core::Result<ValueCow<'_>> {
        Ok(self.0.try_get(path).unwrap_or(ValueCow::Owned(LiquidValue::Nil)))
    }

    fn set_global(&self, name: liquid::model::KString, val: LiquidValue) -> Option<LiquidValue> {
        self.0.set_global(name, val)
    }

    fn set_index(&self, name: liquid::model::KString, val: LiquidValue) -> Option<LiquidValue> {
        self.0.set_index(name, val)
    }

    fn get_index<'a>(&'a self, name: &str) -> Option<ValueCow<'a>> {
        self.0.get_index(name)
    }

    fn registers(&self) -> &Registers {
        self.0.registers()
    }
}

/// The standard `date` filter, also accepting RFC 3339 input (`2024-03-01T10:00:00Z`, what JSON payloads and our
/// API carry), which Liquid's own date parsing does not understand.
#[derive(Clone)]
struct Rfc3339Date<F>(F);

impl<F: ParseFilter + Clone + 'static> ParseFilter for Rfc3339Date<F> {
    fn parse(&self, arguments: FilterArguments<'_>) -> liquid_core::Result<Box<dyn Filter>> {
        Ok(Box::new(Rfc3339DateFilter(self.0.parse(arguments)?)))
    }

    fn reflection(&self) -> &dyn FilterReflection {
        self.0.reflection()
    }
}

#[derive(Debug)]
struct Rfc3339DateFilter(Box<dyn Filter>);

impl fmt::Display for Rfc3339DateFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Filter for Rfc3339DateFilter {
    fn evaluate(&self, input: &dyn ValueView, runtime: &dyn Runtime) -> liquid_core::Result<LiquidValue> {
        let rfc3339 = input.as_scalar().and_then(|s| chrono::DateTime::parse_from_rfc3339(s.to_kstr().as_str()).ok());
        match rfc3339 {
            // Liquid's own serialized date format: `2024-03-01 10:00:00 +0000` (with `.123` when present).
            Some(date) => {
                let text = date.format("%Y-%m-%d %H:%M:%S%.f %z").to_string();
                self.0.evaluate(&LiquidValue::scalar(text), runtime)
            }
            None => self.0.evaluate(input, runtime),
        }
    }
}

#[cfg(test)]
mod tests;
