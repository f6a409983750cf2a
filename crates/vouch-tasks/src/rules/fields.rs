//! The rules of one task on its own: required fields, types, enums, ranges, UUIDs (T4),
//! timestamps (T7), `schemas`, scheduling, field consistency by status (T2), provenance's own
//! part, and inputs against their schema (T9). What it learns for the rules across tasks goes
//! into an [`Info`].

use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::document::{Fields, Key, RawTask};
use crate::issue::{Issue, code};
use crate::model::{OriginType, ScheduleType, SchemaType, Status};
use crate::rules::ids::IdKey;
use crate::rules::inputs::SchemaCache;
use crate::rules::raw::{json, json_of};
use crate::rules::schedule;
use crate::timestamp::{self, Timestamp};

/// What the rules across tasks need of one task.
#[derive(Debug, Default, Clone)]
pub(crate) struct Info<'a> {
    /// `id`, when it is a string (a malformed one included: it still names the task).
    pub(crate) id: Option<IdKey<'a>>,
    /// `parent_id`, when it is a string.
    pub(crate) parent_id: Option<IdKey<'a>>,
    /// `original_task_id`, when it is a string (rare, so boxed).
    pub(crate) original_task_id: Option<Box<IdKey<'a>>>,
    /// The task's dependencies: a range of the list all tasks' dependencies share.
    pub(crate) deps: std::ops::Range<u32>,
    /// True when `parent_id` is absent or null: the task is a root.
    pub(crate) root: bool,
    /// `status`, when valid.
    pub(crate) status: Option<Status>,
    /// `priority` (2 when absent or invalid).
    pub(crate) priority: u8,
    /// `origin_type`, when valid.
    pub(crate) origin_type: Option<OriginType>,
}

/// A dependency of a task.
#[derive(Debug, Clone)]
pub(crate) struct Dep<'a> {
    /// The task depended on.
    pub(crate) id: IdKey<'a>,
    /// Its position in `dependencies`.
    pub(crate) at: u32,
}

/// Checks the fields of task `index`, adding what it finds to `out`.
pub(crate) fn check<'a>(
    index: usize,
    task: &RawTask<'a>,
    cache: &mut SchemaCache<'a>,
    deps: &mut Vec<Dep<'a>>,
    out: &mut Vec<Issue>,
) -> Info<'a> {
    let mut c = Checker { index, out };
    let Some(f) = task.fields() else {
        c.push(
            Issue::error(
                code::VALIDATION,
                Some(index),
                "",
                "a task must be a JSON object",
            )
            .expected("object")
            .actual(json(task.raw)),
        );
        return Info {
            priority: 2,
            ..Info::default()
        };
    };
    let mut info = Info {
        priority: 2,
        root: present(f.parent_id).is_none(),
        ..Info::default()
    };

    // Required fields.
    info.id = c.uuid(f.id, "id", true);
    match c.required_text(f.name, "name") {
        Some(name) if name.is_empty() => c.push(
            c.err("name", "must not be empty")
                .expected("1-255 characters")
                .actual(name.as_ref()),
        ),
        Some(name) if name.chars().count() > 255 => {
            let n = name.chars().count();
            c.push(
                c.err("name", format!("is {n} characters long"))
                    .expected("1-255 characters")
                    .actual(n),
            );
        }
        _ => {}
    }
    info.status = c
        .required_text(f.status, "status")
        .and_then(|s| c.choice::<Status>(&s, "status"));

    // Optional scalars.
    if let Some(raw) = present(f.priority) {
        match integer(raw) {
            Some(p @ 0..=3) => info.priority = u8::try_from(p).unwrap_or(2),
            Some(_) => c.push(
                c.err("priority", "Value out of range")
                    .expected("0-3")
                    .actual(json(raw)),
            ),
            None => c.push(
                c.err("priority", "must be an integer")
                    .expected("integer 0-3")
                    .actual(json(raw)),
            ),
        }
    }
    if let Some(raw) = present(f.progress) {
        match number(raw) {
            Some(p) if (0.0..=1.0).contains(&p) => {}
            Some(_) => c.push(
                c.err("progress", "Value out of range")
                    .expected("0.0-1.0")
                    .actual(json(raw)),
            ),
            None => c.push(
                c.err("progress", "must be a number")
                    .expected("number 0.0-1.0")
                    .actual(json(raw)),
            ),
        }
    }
    c.optional_text(f.user_id, "user_id");
    info.parent_id = c.uuid(f.parent_id, "parent_id", false);
    c.kind(f.inputs, "inputs", '{', "object");
    c.kind(f.params, "params", '{', "object");
    if let Some(raw) = present(f.error)
        && !raw.get().starts_with(['"', '{'])
    {
        c.push(
            c.err("error", "must be a string or an object")
                .expected("string")
                .actual(json(raw)),
        );
    }
    c.boolean(f.has_references, "has_references");
    c.boolean(f.schedule_enabled, "schedule_enabled");
    info.origin_type = c
        .optional_text(f.origin_type, "origin_type")
        .and_then(|s| c.choice::<OriginType>(&s, "origin_type"));
    info.original_task_id = c
        .uuid(f.original_task_id, "original_task_id", false)
        .map(Box::new);
    let max_runs = c.count(f.max_runs, "max_runs", 1);
    let run_count = c.count(f.run_count, "run_count", 0);

    // Timestamps.
    let created_at = c.timestamp(f.created_at, "created_at");
    let updated_at = c.timestamp(f.updated_at, "updated_at");
    let started_at = c.timestamp(f.started_at, "started_at");
    let completed_at = c.timestamp(f.completed_at, "completed_at");
    let schedule_start_at = c.timestamp(f.schedule_start_at, "schedule_start_at");
    let schedule_end_at = c.timestamp(f.schedule_end_at, "schedule_end_at");
    let next_run_at = c.timestamp(f.next_run_at, "next_run_at");
    let _ = c.timestamp(f.last_run_at, "last_run_at");

    let first = deps.len();
    c.dependencies(f.dependencies, deps);
    info.deps =
        u32::try_from(first).unwrap_or(u32::MAX)..u32::try_from(deps.len()).unwrap_or(u32::MAX);
    c.schemas(&f, cache);

    // Consistency by status (T2: the two SHOULDs are warnings).
    let set = |raw: Option<&RawValue>| present(raw).is_some();
    match info.status {
        Some(Status::Completed) if !set(f.result) => {
            c.push(
                c.warn("result", "should be populated when status is completed")
                    .expected("a result"),
            );
        }
        Some(Status::Failed | Status::Cancelled)
            if present(f.error).is_none_or(|e| matches!(e.get(), "\"\"" | "{}")) =>
        {
            let status = info.status.map_or("", Status::as_str);
            c.push(
                c.warn(
                    "error",
                    format!("should be populated when status is {status}"),
                )
                .expected("an error"),
            );
        }
        Some(Status::Pending) if set(f.started_at) => {
            c.push(
                c.err("started_at", "must be null when status is pending")
                    .expected(Value::Null)
                    .actual(json_of(f.started_at)),
            );
        }
        Some(Status::InProgress) if !set(f.started_at) => {
            c.push(
                c.err("started_at", "must be set when status is in_progress")
                    .expected("a timestamp"),
            );
        }
        _ => {}
    }
    if info.status.is_some_and(Status::is_terminal) && !set(f.completed_at) {
        let status = info.status.map_or("", Status::as_str);
        c.push(
            c.err(
                "completed_at",
                format!("must be set when status is terminal ({status})"),
            )
            .expected("a timestamp"),
        );
    }
    c.order(
        started_at,
        completed_at,
        "completed_at",
        "is before started_at",
    );
    c.order(created_at, updated_at, "updated_at", "is before created_at");

    // Scheduling.
    let schedule_type = c
        .optional_text(f.schedule_type, "schedule_type")
        .and_then(|s| c.choice::<ScheduleType>(&s, "schedule_type"));
    let expression = c.optional_text(f.schedule_expression, "schedule_expression");
    if f.schedule_enabled.is_some_and(|e| e.get() == "true") {
        if present(f.schedule_type).is_none() {
            c.push(
                c.err("schedule_type", "must be set when schedule_enabled is true")
                    .expected(ScheduleType::names()),
            );
        }
        if present(f.schedule_expression).is_none() {
            c.push(
                c.err(
                    "schedule_expression",
                    "must be set when schedule_enabled is true",
                )
                .expected("an expression for the schedule_type"),
            );
        }
    }
    match (schedule_type, &expression) {
        (Some(kind), Some(expr)) => {
            if let Err((expected, why)) = schedule::check(kind, expr) {
                c.push(
                    c.err(
                        "schedule_expression",
                        format!("is not a valid `{kind}` expression: {why}"),
                    )
                    .expected(expected)
                    .actual(expr.as_ref()),
                );
            }
        }
        (None, Some(expr)) if present(f.schedule_type).is_none() => {
            c.push(
                c.err(
                    "schedule_expression",
                    "is set without a schedule_type to read it",
                )
                .expected("schedule_type set")
                .actual(expr.as_ref()),
            );
        }
        _ => {}
    }
    if let (Some(runs), Some(max)) = (run_count, max_runs)
        && runs > max
    {
        c.push(
            c.err("run_count", format!("is more than max_runs ({max})"))
                .expected(format!("0-{max}"))
                .actual(runs),
        );
    }
    c.order(
        next_run_at,
        schedule_end_at,
        "next_run_at",
        "is after schedule_end_at",
    );
    c.order(
        schedule_start_at,
        schedule_end_at,
        "schedule_end_at",
        "is before schedule_start_at",
    );

    // Provenance, the task's own part.
    if matches!(
        info.origin_type,
        Some(OriginType::Link | OriginType::Archive)
    ) && present(f.original_task_id).is_none()
    {
        let origin = info.origin_type.map_or("", OriginType::as_str);
        c.push(
            c.err(
                "original_task_id",
                format!("must be set when origin_type is {origin}"),
            )
            .expected("the id of the original task"),
        );
    }
    info
}

/// Returns `raw` unless it is absent or `null`.
pub(crate) fn present(raw: Option<&RawValue>) -> Option<&RawValue> {
    raw.filter(|r| r.get() != "null")
}

/// The format of a UUID v4, for messages.
const UUID_FORMAT: &str = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx (y: 8, 9, a or b)";

/// Returns the string of `raw`, borrowed when it has no escapes; `None` when not a string.
pub(crate) fn text(raw: &RawValue) -> Option<Cow<'_, str>> {
    let t = raw.get();
    if !t.starts_with('"') {
        return None;
    }
    // The document was parsed as JSON already: a string without a backslash is its content.
    if t.len() >= 2 && !t.as_bytes().contains(&b'\\') {
        return Some(Cow::Borrowed(&t[1..t.len() - 1]));
    }
    match serde_json::from_str::<&str>(t) {
        Ok(s) => Some(Cow::Borrowed(s)),
        Err(_) => serde_json::from_str::<String>(t).ok().map(Cow::Owned),
    }
}

/// Returns the integer `raw` holds, when it is written as one (`2`, not `2.0` or `true`).
fn integer(raw: &RawValue) -> Option<i64> {
    let t = raw.get();
    if t.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
        t.parse().ok()
    } else {
        None
    }
}

/// Returns the number `raw` holds.
fn number(raw: &RawValue) -> Option<f64> {
    let t = raw.get();
    if t.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        t.parse().ok()
    } else {
        None
    }
}

struct Checker<'o> {
    index: usize,
    out: &'o mut Vec<Issue>,
}

impl Checker<'_> {
    fn push(&mut self, issue: Issue) {
        self.out.push(issue);
    }

    fn err(&self, field: &str, reason: impl Into<String>) -> Issue {
        Issue::error(code::VALIDATION, Some(self.index), field, reason)
    }

    fn warn(&self, field: &str, reason: impl Into<String>) -> Issue {
        Issue::warning(code::VALIDATION, Some(self.index), field, reason)
    }

    /// A string field that must be present.
    fn required_text<'a>(
        &mut self,
        raw: Option<&'a RawValue>,
        field: &str,
    ) -> Option<Cow<'a, str>> {
        let Some(raw) = present(raw) else {
            self.push(
                self.err(field, format!("{field} is required"))
                    .expected("string"),
            );
            return None;
        };
        let t = text(raw);
        if t.is_none() {
            self.push(
                self.err(field, "must be a string")
                    .expected("string")
                    .actual(json(raw)),
            );
        }
        t
    }

    /// A string field that may be absent or null.
    fn optional_text<'a>(
        &mut self,
        raw: Option<&'a RawValue>,
        field: &str,
    ) -> Option<Cow<'a, str>> {
        let raw = present(raw)?;
        let t = text(raw);
        if t.is_none() {
            self.push(
                self.err(field, "must be a string or null")
                    .expected("string")
                    .actual(json(raw)),
            );
        }
        t
    }

    /// A UUID v4 field (T4); returns the text whenever it is a string.
    fn uuid<'a>(
        &mut self,
        raw: Option<&'a RawValue>,
        field: &str,
        required: bool,
    ) -> Option<IdKey<'a>> {
        let t = if required {
            self.required_text(raw, field)?
        } else {
            self.optional_text(raw, field)?
        };
        Some(self.id_key(t, &|| field.to_owned()))
    }

    /// Returns the key of id `t`, reporting it when it is not a UUID v4.
    /// `field` names the field, built only for a message.
    fn id_key<'a>(&mut self, t: Cow<'a, str>, field: &dyn Fn() -> String) -> IdKey<'a> {
        match crate::uuid::parse(&t) {
            Some((bits, true)) => IdKey::from_bits(bits),
            parsed => {
                self.push(
                    self.err(&field(), "must be a valid UUID v4")
                        .expected(UUID_FORMAT)
                        .actual(t.as_ref()),
                );
                parsed.map_or_else(
                    || IdKey::Text(Box::new(t)),
                    |(bits, _)| IdKey::from_bits(bits),
                )
            }
        }
    }

    /// A value of one of an enum's names.
    fn choice<T: std::str::FromStr + EnumNames>(&mut self, value: &str, field: &str) -> Option<T> {
        let parsed = value.parse::<T>().ok();
        if parsed.is_none() {
            self.push(
                self.err(
                    field,
                    format!("must be one of: {}", T::names().replace('|', ", ")),
                )
                .expected(T::names())
                .actual(value),
            );
        }
        parsed
    }

    /// A field that must be null or of the JSON kind starting with `first`.
    fn kind(&mut self, raw: Option<&RawValue>, field: &str, first: char, kind: &str) {
        if let Some(raw) = present(raw)
            && !raw.get().starts_with(first)
        {
            self.push(
                self.err(field, format!("must be an {kind} or null"))
                    .expected(kind)
                    .actual(json(raw)),
            );
        }
    }

    fn boolean(&mut self, raw: Option<&RawValue>, field: &str) {
        if let Some(raw) = present(raw)
            && !matches!(raw.get(), "true" | "false")
        {
            self.push(
                self.err(field, "must be true, false or null")
                    .expected("boolean")
                    .actual(json(raw)),
            );
        }
    }

    /// A whole number of at least `min`.
    fn count(&mut self, raw: Option<&RawValue>, field: &str, min: i64) -> Option<i64> {
        let raw = present(raw)?;
        match integer(raw) {
            Some(n) if n >= min => Some(n),
            Some(_) => {
                self.push(
                    self.err(field, "Value out of range")
                        .expected(format!("integer >= {min}"))
                        .actual(json(raw)),
                );
                None
            }
            None => {
                self.push(
                    self.err(field, "must be an integer")
                        .expected(format!("integer >= {min}"))
                        .actual(json(raw)),
                );
                None
            }
        }
    }

    /// A timestamp (T7); a timestamp without offset is a warning.
    fn timestamp(&mut self, raw: Option<&RawValue>, field: &str) -> Option<Timestamp> {
        let t = self.optional_text(raw, field)?;
        match timestamp::parse(&t) {
            Ok(ts) => {
                if !ts.has_offset {
                    self.push(
                        self.warn(
                            field,
                            "has no UTC offset; timestamps SHOULD be UTC (read as UTC)",
                        )
                        .expected("an ISO 8601 timestamp with Z or +00:00")
                        .actual(t.as_ref()),
                    );
                }
                Some(ts)
            }
            Err(why) => {
                self.push(
                    self.err(field, format!("is not a valid ISO 8601 timestamp: {why}"))
                        .expected("ISO 8601, as 2024-01-15T09:30:00Z")
                        .actual(t.as_ref()),
                );
                None
            }
        }
    }

    /// `later` must not come before `earlier`; the issue goes on `field`.
    fn order(
        &mut self,
        earlier: Option<Timestamp>,
        later: Option<Timestamp>,
        field: &str,
        reason: &str,
    ) {
        if let (Some(a), Some(b)) = (earlier, later)
            && b.micros < a.micros
        {
            self.push(self.err(field, reason).expected("timestamps in order"));
        }
    }

    /// Reads `dependencies` into `deps`.
    fn dependencies<'a>(&mut self, raw: Option<&'a RawValue>, deps: &mut Vec<Dep<'a>>) {
        let Some(raw) = present(raw) else {
            return;
        };
        let Ok(items) = serde_json::from_str::<Vec<DepItem<'a>>>(raw.get()) else {
            self.push(
                self.err("dependencies", "must be a list")
                    .expected("[{\"id\": uuid, \"required\": bool}]")
                    .actual(json(raw)),
            );
            return;
        };
        // The value of item `at`, for a message.
        let item_value = |at: usize| json(raw).get(at).cloned().unwrap_or(Value::Null);
        for (at, item) in items.into_iter().enumerate() {
            let field = || format!("dependencies[{at}]");
            let (id, object) = match item {
                DepItem::Id(id) => (id, false),
                DepItem::Object { id, required } => {
                    if let Some(r) = present(required)
                        && !matches!(r.get(), "true" | "false")
                    {
                        self.push(
                            self.err(&format!("{}.required", field()), "must be true or false")
                                .expected("boolean")
                                .actual(json(r)),
                        );
                    }
                    let Some(r) = present(id) else {
                        self.push(
                            self.err(&format!("{}.id", field()), "dependency id is required")
                                .expected("a task id"),
                        );
                        continue;
                    };
                    let Some(id) = text(r) else {
                        self.push(
                            self.err(&format!("{}.id", field()), "must be a string")
                                .expected("a task id")
                                .actual(json(r)),
                        );
                        continue;
                    };
                    (id, true)
                }
                DepItem::Other => {
                    self.push(
                        self.err(&field(), "must be an object with an id, or an id")
                            .expected("{\"id\": uuid, \"required\": bool}")
                            .actual(item_value(at)),
                    );
                    continue;
                }
            };
            let id_field = || {
                if object {
                    format!("{}.id", field())
                } else {
                    field()
                }
            };
            let id = self.id_key(id, &id_field);
            deps.push(Dep {
                id,
                at: u32::try_from(at).unwrap_or(u32::MAX),
            });
        }
    }

    fn schemas<'a>(&mut self, f: &Fields<'a>, cache: &mut SchemaCache<'a>) {
        let Some(raw) = present(f.schemas) else {
            return;
        };
        if !raw.get().starts_with('{') {
            self.push(
                self.err("schemas", "must be an object or null")
                    .expected("{\"method\": string, ...}")
                    .actual(json(raw)),
            );
            return;
        }
        let Ok(s) = serde_json::from_str::<SchemasRaw<'a>>(raw.get()) else {
            return;
        };
        match present(s.method).map(|m| (m, text(m))) {
            None => self.push(
                self.err("schemas.method", "schemas.method is required")
                    .expected("a non-empty string"),
            ),
            Some((m, None)) => self.push(
                self.err("schemas.method", "must be a string")
                    .expected("a non-empty string")
                    .actual(json(m)),
            ),
            Some((_, Some(m))) if m.trim().is_empty() => self.push(
                self.err("schemas.method", "must not be empty")
                    .expected("a non-empty string")
                    .actual(m.as_ref()),
            ),
            Some(_) => {}
        }
        if let Some(t) = self.optional_text(s.kind, "schemas.type") {
            let _ = self.choice::<SchemaType>(&t, "schemas.type");
        }
        if let Some(schema) = present(s.input_schema) {
            let inputs = present(f.inputs);
            cache.check(self.index, schema, inputs, self.out);
        }
    }
}

/// An item of `dependencies`, read in one pass: a bare id, an object's `id` and `required`,
/// or anything else.
enum DepItem<'a> {
    Id(Cow<'a, str>),
    Object {
        id: Option<&'a RawValue>,
        required: Option<&'a RawValue>,
    },
    Other,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for DepItem<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = DepItem<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a dependency")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<DepItem<'a>, E> {
                Ok(DepItem::Id(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<DepItem<'a>, E> {
                Ok(DepItem::Id(Cow::Owned(v.to_owned())))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<DepItem<'a>, A::Error> {
                let (mut id, mut required) = (None, None);
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    match key.as_str() {
                        "id" => id = Some(value),
                        "required" => required = Some(value),
                        _ => {}
                    }
                }
                Ok(DepItem::Object { id, required })
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<DepItem<'a>, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(DepItem::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<DepItem<'a>, E> {
                Ok(DepItem::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<DepItem<'a>, E> {
                Ok(DepItem::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<DepItem<'a>, E> {
                Ok(DepItem::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<DepItem<'a>, E> {
                Ok(DepItem::Other)
            }
            fn visit_unit<E>(self) -> Result<DepItem<'a>, E> {
                Ok(DepItem::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// The keys of `schemas`.
#[derive(serde::Deserialize)]
struct SchemasRaw<'a> {
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "type")]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input_schema: Option<&'a RawValue>,
}

/// The names of an enum, for messages.
pub(crate) trait EnumNames {
    fn names() -> String;
}

macro_rules! enum_names {
    ($($t:ty),+) => {
        $(impl EnumNames for $t {
            fn names() -> String {
                <$t>::names()
            }
        })+
    };
}

enum_names!(Status, SchemaType, OriginType, ScheduleType);
