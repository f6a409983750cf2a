//! Reading a task document — a JSON array of tasks, a tree of `{task, children}` nodes (or an
//! array of them), JSONL, or `{"tasks": [...]}` — into raw tasks that borrow from the text and
//! remember where they are.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::issue::{Issue, code};

macro_rules! fields {
    ($($name:ident),+ $(,)?) => {
        /// The protocol's fields of one task, each as its raw JSON text when present.
        #[derive(Debug, Default, Clone, Copy)]
        pub(crate) struct Fields<'a> {
            $(pub(crate) $name: Option<&'a RawValue>,)+
            /// `task` and `children`, for a tree node.
            pub(crate) task: Option<&'a RawValue>,
            pub(crate) children: Option<&'a RawValue>,
            /// `tasks`, for a wrapped document.
            pub(crate) tasks: Option<&'a RawValue>,
        }

        impl<'a> Fields<'a> {
            fn set(&mut self, key: &str, value: &'a RawValue) -> bool {
                match key {
                    $(stringify!($name) => self.$name = Some(value),)+
                    "task" => self.task = Some(value),
                    "children" => self.children = Some(value),
                    "tasks" => self.tasks = Some(value),
                    _ => return false,
                }
                true
            }
        }
    };
}

fields!(
    id,
    parent_id,
    user_id,
    name,
    status,
    priority,
    inputs,
    schemas,
    params,
    result,
    error,
    dependencies,
    progress,
    created_at,
    updated_at,
    started_at,
    completed_at,
    origin_type,
    original_task_id,
    has_references,
    schedule_type,
    schedule_expression,
    schedule_enabled,
    schedule_start_at,
    schedule_end_at,
    next_run_at,
    last_run_at,
    max_runs,
    run_count,
);

impl<'de: 'a, 'a> Deserialize<'de> for Fields<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Fields<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a task object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'a>, A::Error> {
                let mut fields = Fields::default();
                // Unknown keys are skipped by borrowing their raw text, which costs nothing; the
                // last of duplicate keys wins, as JSON parsers commonly do.
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    let _ = fields.set(key.as_str(), value);
                }
                Ok(fields)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A key, borrowed when it has no escapes.
pub(crate) enum Key<'a> {
    Borrowed(&'a str),
    Owned(String),
}

impl Key<'_> {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v.to_owned()))
            }
        }
        d.deserialize_str(V)
    }
}

/// One task of a document, unparsed: its fields are read when it is validated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawTask<'a> {
    /// The task's whole text.
    pub(crate) raw: &'a RawValue,
}

impl<'a> RawTask<'a> {
    /// Returns the task's fields; `None` when it is not a JSON object.
    pub(crate) fn fields(&self) -> Option<Fields<'a>> {
        object(self.raw)
    }
}

/// Where the tasks of a tree document sit (array documents need no more than the index).
#[derive(Debug, Default)]
struct Tree {
    /// Each task's JSON path.
    paths: Vec<String>,
    /// Each task's enclosing node's task: its `parent_id` must be that task's id.
    enclosing: Vec<Option<usize>>,
}

/// What a report shows of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskLabel {
    /// Its JSON path.
    pub path: String,
    /// The 1-based line where it starts.
    pub line: usize,
    /// The 1-based column where it starts.
    pub column: usize,
    /// Its `id`, when a string.
    pub id: Option<String>,
    /// Its `name`, when a string.
    pub name: Option<String>,
}

/// How the document was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A JSON array of tasks (or of tree nodes).
    Array,
    /// `{"tasks": [...]}`.
    Wrapped,
    /// One `{task, children}` node, or one task.
    Tree,
    /// One task (or node) per line.
    Jsonl,
}

/// A document that is not JSON (or not a task document at all): where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
#[non_exhaustive]
pub struct SyntaxError {
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl SyntaxError {
    fn at(text: &str, offset: usize, message: impl Into<String>) -> SyntaxError {
        let (line, column) = line_column(text, offset);
        SyntaxError {
            line,
            column,
            message: message.into(),
        }
    }

    fn from_json(e: &serde_json::Error) -> SyntaxError {
        let message = e.to_string();
        // serde_json appends " at line L column C"; the fields carry them.
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_owned();
        SyntaxError {
            line: e.line().max(1),
            column: e.column().max(1),
            message,
        }
    }
}

/// Returns the 1-based line and column (in characters) of byte `offset` of `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

/// A parsed task document: its tasks, borrowed from the text.
#[derive(Debug)]
pub struct Document<'a> {
    pub(crate) text: &'a str,
    pub(crate) form: Form,
    pub(crate) tasks: Vec<RawTask<'a>>,
    /// For documents with tree nodes: where each task sits.
    tree: Tree,
    /// Problems of the document's shape (a node without `task`, children that are not a list).
    pub(crate) issues: Vec<Issue>,
}

impl<'a> Document<'a> {
    /// Reads `text`. Anything that is not JSON, or JSON that is not a task document, is a
    /// [`SyntaxError`] with its line and column; everything else is left to validation.
    pub fn parse(text: &'a str) -> Result<Document<'a>, SyntaxError> {
        Document::parse_with(text, &mut |_, _| {})
    }

    /// Reads `text` as [`Document::parse`] does; for an array of tasks, hands `sink` each
    /// batch of tasks (its first index, its tasks) as soon as it is read, so that checking the
    /// tasks overlaps reading the rest.
    pub(crate) fn parse_with(
        text: &'a str,
        sink: &mut dyn FnMut(usize, Vec<RawTask<'a>>),
    ) -> Result<Document<'a>, SyntaxError> {
        let start = text.len() - text.trim_start().len();
        let mut doc = Document {
            text,
            form: Form::Array,
            tasks: Vec::new(),
            tree: Tree::default(),
            issues: Vec::new(),
        };
        match text.as_bytes().get(start) {
            None => return Err(SyntaxError::at(text, 0, "the document is empty")),
            Some(b'[') => {
                let mut de = serde_json::Deserializer::from_str(text);
                let mut stream = Stream {
                    tasks: &mut doc.tasks,
                    sink,
                    nodes: false,
                };
                de::Deserializer::deserialize_seq(&mut de, &mut stream)
                    .and_then(|()| de.end())
                    .map_err(|e| SyntaxError::from_json(&e))?;
                if stream.nodes {
                    // An array of tree nodes: nothing was handed out; expand them.
                    let items: Vec<&RawValue> = doc.tasks.drain(..).map(|t| t.raw).collect();
                    doc.items(&items, "$");
                }
            }
            Some(b'{') => {
                let mut records = Vec::new();
                for record in serde_json::Deserializer::from_str(text).into_iter::<&RawValue>() {
                    records.push(record.map_err(|e| SyntaxError::from_json(&e))?);
                }
                if let [one] = records.as_slice() {
                    let fields = object(one).unwrap_or_default();
                    match fields.tasks {
                        Some(list) if fields.id.is_none() && fields.task.is_none() => {
                            let items: Vec<&RawValue> =
                                serde_json::from_str(list.get()).map_err(|_| {
                                    SyntaxError::at(
                                        text,
                                        offset(text, list),
                                        "`tasks` must be a list of tasks",
                                    )
                                })?;
                            doc.form = Form::Wrapped;
                            doc.items(&items, "$.tasks");
                        }
                        _ => {
                            doc.form = Form::Tree;
                            doc.item(one, "$".to_owned(), None);
                        }
                    }
                } else {
                    doc.form = Form::Jsonl;
                    doc.items(&records, "$");
                }
            }
            Some(_) => {
                return Err(SyntaxError::at(
                    text,
                    start,
                    "expected a task document: a JSON array of tasks, a {\"task\", \"children\"} tree, or one task per line",
                ));
            }
        }
        Ok(doc)
    }

    /// Returns how the document was written.
    pub fn form(&self) -> Form {
        self.form
    }

    /// Returns how many tasks it holds.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Returns true when it holds no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Returns the 1-based line and column where task `index` starts.
    pub fn line_column(&self, index: usize) -> Option<(usize, usize)> {
        let task = self.tasks.get(index)?;
        Some(line_column(self.text, offset(self.text, task.raw)))
    }

    /// Returns what a report shows of task `index`: its path, where it starts, and its id and
    /// name when they are strings.
    pub fn label(&self, index: usize) -> TaskLabel {
        let (line, column) = self.line_column(index).unwrap_or((0, 0));
        let fields = self
            .tasks
            .get(index)
            .and_then(RawTask::fields)
            .unwrap_or_default();
        let string =
            |raw: Option<&RawValue>| raw.and_then(|r| serde_json::from_str::<String>(r.get()).ok());
        TaskLabel {
            path: self.path(index),
            line,
            column,
            id: string(fields.id),
            name: string(fields.name),
        }
    }

    /// Returns the `id` of task `index`, when it is a string (cheaper than [`Document::label`],
    /// which also finds the line and column).
    pub fn id(&self, index: usize) -> Option<String> {
        let raw = self.tasks.get(index)?.fields()?.id?;
        serde_json::from_str::<String>(raw.get()).ok()
    }

    /// Returns the tasks as typed values, for a document that validated; the first task that
    /// does not deserialize is returned with its error.
    pub fn typed_tasks(&self) -> Result<Vec<crate::model::Task>, (usize, serde_json::Error)> {
        self.tasks
            .iter()
            .enumerate()
            .map(|(i, t)| serde_json::from_str(t.raw.get()).map_err(|e| (i, e)))
            .collect()
    }

    /// Returns the task of the tree node enclosing task `index`'s node, in a tree document.
    pub(crate) fn enclosing(&self, index: usize) -> Option<usize> {
        self.tree.enclosing.get(index).copied().flatten()
    }

    /// Returns the JSON path of task `index`.
    pub fn path(&self, index: usize) -> String {
        if let Some(path) = self.tree.paths.get(index) {
            return path.clone();
        }
        match self.form {
            Form::Wrapped => format!("$.tasks[{index}]"),
            _ => format!("$[{index}]"),
        }
    }

    /// Adds the elements of a list: tasks, or — when the first element is one — tree nodes.
    fn items(&mut self, items: &[&'a RawValue], base: &str) {
        let nodes = items
            .first()
            .and_then(|first| object(first))
            .is_some_and(|f| f.task.is_some() && f.id.is_none());
        if nodes {
            for (i, item) in items.iter().enumerate() {
                self.item(item, format!("{base}[{i}]"), None);
            }
            return;
        }
        self.tasks.extend(items.iter().map(|&raw| RawTask { raw }));
    }

    /// Adds a task of a tree document, with its path.
    fn push_placed(&mut self, raw: &'a RawValue, path: String, enclosing: Option<usize>) {
        // Tasks read before the first node (none, today) get their index paths.
        while self.tree.paths.len() < self.tasks.len() {
            let i = self.tree.paths.len();
            self.tree.paths.push(format!("$[{i}]"));
            self.tree.enclosing.push(None);
        }
        self.tasks.push(RawTask { raw });
        self.tree.paths.push(path);
        self.tree.enclosing.push(enclosing);
    }

    /// Adds a tree node and everything below it (or a lone task), without recursion.
    fn item(&mut self, root: &'a RawValue, path: String, enclosing: Option<usize>) {
        let mut stack = vec![(root, path, enclosing)];
        while let Some((node, path, enclosing)) = stack.pop() {
            let Some(fields) = object(node) else {
                self.issues
                    .push(shape(&path, "a tree node must be an object"));
                continue;
            };
            let Some(task) = fields.task.filter(|_| fields.id.is_none()) else {
                // A lone task where a node could be.
                self.push_placed(node, path, enclosing);
                continue;
            };
            let index = self.tasks.len();
            self.push_placed(task, format!("{path}.task"), enclosing);
            let Some(children) = fields.children.filter(|c| c.get() != "null") else {
                continue;
            };
            match serde_json::from_str::<Vec<&RawValue>>(children.get()) {
                Ok(children) => {
                    // Reversed, so that the stack pops them in document order.
                    for (i, child) in children.iter().enumerate().rev() {
                        stack.push((child, format!("{path}.children[{i}]"), Some(index)));
                    }
                }
                Err(_) => self.issues.push(shape(
                    &format!("{path}.children"),
                    "`children` must be a list of nodes",
                )),
            }
        }
    }
}

/// How many tasks a batch holds.
const BATCH: usize = 4_096;

/// Reads a top-level array, keeping its elements and handing out batches of plain tasks.
struct Stream<'s, 'a> {
    tasks: &'s mut Vec<RawTask<'a>>,
    sink: &'s mut dyn FnMut(usize, Vec<RawTask<'a>>),
    /// True when the first element is a tree node: then nothing is handed out.
    nodes: bool,
}

impl<'de: 'a, 'a> Visitor<'de> for &mut Stream<'_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of tasks")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut batch: Vec<RawTask<'a>> = Vec::with_capacity(BATCH);
        let mut batch_start = 0;
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            if self.tasks.is_empty() {
                self.nodes = object(raw).is_some_and(|f| f.task.is_some() && f.id.is_none());
            }
            self.tasks.push(RawTask { raw });
            if self.nodes {
                continue;
            }
            batch.push(RawTask { raw });
            if batch.len() == BATCH {
                (self.sink)(
                    batch_start,
                    std::mem::replace(&mut batch, Vec::with_capacity(BATCH)),
                );
                batch_start = self.tasks.len();
            }
        }
        if !batch.is_empty() {
            (self.sink)(batch_start, batch);
        }
        Ok(())
    }
}

fn shape(path: &str, reason: &str) -> Issue {
    let mut issue = Issue::error(code::VALIDATION, None, "", reason);
    path.clone_into(&mut issue.path);
    issue
}

/// Returns the byte offset of `raw` in `text`.
fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// Reads `raw` as an object's fields; `None` when it is not an object.
fn object(raw: &RawValue) -> Option<Fields<'_>> {
    if !raw.get().starts_with('{') {
        return None;
    }
    serde_json::from_str::<Fields<'_>>(raw.get()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_read_with_its_paths() {
        let doc = Document::parse(r#"[{"id": "a"}, 5, {"task": {"id": "b"}}]"#).unwrap();
        assert_eq!(doc.form(), Form::Array);
        assert_eq!(doc.len(), 3);
        assert_eq!(doc.path(1), "$[1]");
        assert!(doc.tasks[1].fields().is_none());
        // The first element decides: these are tasks, the third one without an id.
        assert_eq!(doc.path(2), "$[2]");

        let doc = Document::parse(r#"[{"task": {"id": "b"}, "children": [{"task": {"id": "c"}}]}, {"task": {"id": "d"}}]"#).unwrap();
        assert_eq!(doc.len(), 3);
        assert_eq!(doc.path(0), "$[0].task");
        assert_eq!(doc.path(1), "$[0].children[0].task");
        assert_eq!(doc.enclosing(1), Some(0));
        assert_eq!(doc.enclosing(0), None);
        assert_eq!(doc.path(2), "$[1].task");

        let doc = Document::parse("{\"id\": \"a\"}\n{\"id\": \"b\"}\n").unwrap();
        assert_eq!(doc.form(), Form::Jsonl);
        assert_eq!(doc.line_column(1), Some((2, 1)));

        let doc = Document::parse(r#"{"tasks": [{"id": "a"}]}"#).unwrap();
        assert_eq!(doc.form(), Form::Wrapped);
        assert_eq!(doc.path(0), "$.tasks[0]");

        let doc = Document::parse(r#"{"task": {"id": "a"}, "children": 3}"#).unwrap();
        assert_eq!(doc.form(), Form::Tree);
        assert_eq!(doc.issues.len(), 1);
    }

    #[test]
    fn what_is_not_a_document_is_a_syntax_error_with_its_place() {
        let e = Document::parse("[\n  {\"id\": 1,}\n]").unwrap_err();
        assert_eq!((e.line, e.column), (2, 12));
        assert!(Document::parse("   ").is_err());
        assert!(Document::parse("42").is_err());
        assert!(Document::parse("{\"a\": 1}\n{oops}").is_err());
    }
}
