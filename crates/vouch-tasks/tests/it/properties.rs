//! Properties: random valid trees validate clean; one random defect yields exactly its code;
//! validation never panics on arbitrary JSON (or arbitrary text).

use std::fmt::Write as _;

use proptest::prelude::*;
use serde_json::{Value, json};

fn id(n: usize) -> String {
    format!("{n:08x}-1234-4abc-9def-{:012x}", n * 7919)
}

/// A valid task tree: parents and dependencies point at earlier tasks.
#[derive(Debug, Clone)]
struct Tree {
    parents: Vec<usize>,
    deps: Vec<Vec<usize>>,
    done: Vec<bool>,
    priorities: Vec<u8>,
}

fn tree() -> impl Strategy<Value = Tree> {
    (1usize..30).prop_flat_map(|n| {
        let parents = (1..n).map(|i| 0..i).collect::<Vec<_>>();
        let deps = (0..n)
            .map(|i| {
                proptest::collection::btree_set(0..i.max(1), 0..=i.min(3)).prop_map(move |s| {
                    if i == 0 {
                        Vec::new()
                    } else {
                        s.into_iter().collect()
                    }
                })
            })
            .collect::<Vec<_>>();
        (
            parents,
            deps,
            proptest::collection::vec(any::<bool>(), n),
            proptest::collection::vec(0u8..4, n),
        )
            .prop_map(|(parents, deps, done, priorities)| Tree {
                parents,
                deps,
                done,
                priorities,
            })
    })
}

fn document(t: &Tree) -> Vec<Value> {
    (0..t.done.len())
        .map(|i| {
            let mut task = json!({
                "id": id(i),
                "name": format!("task {i}"),
                "status": if t.done[i] { "completed" } else { "pending" },
                "priority": t.priorities[i],
                "dependencies": t.deps[i].iter().map(|&d| json!({"id": id(d), "required": d % 2 == 0})).collect::<Vec<_>>(),
                "created_at": "2026-11-21T10:00:00Z",
            });
            if i > 0 {
                task["parent_id"] = json!(id(t.parents[i - 1]));
            }
            if t.done[i] {
                task["started_at"] = json!("2026-11-21T10:00:00Z");
                task["completed_at"] = json!("2026-11-21T10:05:00+00:00");
                task["result"] = json!({"ok": true});
            }
            task
        })
        .collect()
}

fn validate(doc: &[Value]) -> vouch_tasks::ValidationReport {
    vouch_tasks::validate_str(&serde_json::to_string(doc).unwrap()).unwrap()
}

/// One defect, and the only code it may produce.
#[derive(Debug, Clone)]
enum Defect {
    Priority(usize),
    MissingDependency(usize),
    SelfDependency(usize),
    Cycle(usize, usize),
    MissingParent(usize),
    SecondRoot(usize),
    StartedWhilePending(usize),
}

impl Defect {
    fn code(&self) -> i32 {
        match self {
            Defect::Priority(_) | Defect::StartedWhilePending(_) => -32005,
            Defect::MissingDependency(_) | Defect::SelfDependency(_) => -32011,
            Defect::Cycle(..) => -32002,
            Defect::MissingParent(_) => -32010,
            Defect::SecondRoot(_) => -32012,
        }
    }

    fn apply(&self, doc: &mut [Value]) {
        let push_dep = |task: &mut Value, target: String| {
            task["dependencies"]
                .as_array_mut()
                .unwrap()
                .push(json!({"id": target}));
        };
        match *self {
            Defect::Priority(i) => doc[i]["priority"] = json!(4),
            Defect::MissingDependency(i) => push_dep(&mut doc[i], id(10_000)),
            Defect::SelfDependency(i) => push_dep(&mut doc[i], id(i)),
            Defect::Cycle(a, b) => {
                // a -> b and b -> a.
                push_dep(&mut doc[a], id(b));
                push_dep(&mut doc[b], id(a));
            }
            Defect::MissingParent(i) => doc[i]["parent_id"] = json!(id(20_000)),
            Defect::SecondRoot(i) => {
                // A leaf (no task names it as parent) becomes a second root.
                let _ = doc[i].as_object_mut().unwrap().remove("parent_id");
            }
            Defect::StartedWhilePending(i) => {
                doc[i]["status"] = json!("pending");
                doc[i]["started_at"] = json!("2026-11-21T10:00:00Z");
                let _ = doc[i].as_object_mut().unwrap().remove("completed_at");
                let _ = doc[i].as_object_mut().unwrap().remove("result");
            }
        }
    }
}

fn defect(n: usize) -> impl Strategy<Value = Defect> {
    let any_task = 0..n;
    prop_oneof![
        any_task.clone().prop_map(Defect::Priority),
        any_task.clone().prop_map(Defect::MissingDependency),
        any_task.clone().prop_map(Defect::SelfDependency),
        // Two distinct tasks when there are two; a lone task gets another defect.
        (0..n, 0..n).prop_map(|(a, b)| if a == b {
            Defect::SelfDependency(a)
        } else {
            Defect::Cycle(a, b)
        }),
        any_task.prop_map(Defect::StartedWhilePending),
    ]
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z_]{0,8}".prop_map(Value::from),
        Just(Value::from(id(1))),
        Just(Value::from("2024-01-15T09:30:00Z")),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("id".to_owned()),
                    Just("parent_id".to_owned()),
                    Just("status".to_owned()),
                    Just("dependencies".to_owned()),
                    Just("task".to_owned()),
                    Just("children".to_owned()),
                    Just("schemas".to_owned()),
                    Just("inputs".to_owned()),
                    Just("input_schema".to_owned()),
                    "[a-z_]{1,8}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_valid_trees_validate_clean(t in tree()) {
        let report = validate(&document(&t));
        prop_assert!(report.errors.is_empty(), "{:#?}", report.errors);
        prop_assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
    }

    #[test]
    fn one_defect_yields_exactly_its_code((t, d) in tree().prop_flat_map(|t| { let n = t.done.len(); (Just(t), defect(n)) })) {
        let mut doc = document(&t);
        d.apply(&mut doc);
        let report = validate(&doc);
        prop_assert!(!report.errors.is_empty(), "{d:?} found nothing");
        for e in &report.errors {
            prop_assert_eq!(e.code, d.code(), "{:?} gave {:#?}", d, report.errors);
        }
        prop_assert_eq!(report.rpc_error().map(|r| r.code), Some(d.code()));
    }

    #[test]
    fn a_detached_leaf_is_a_tree_or_parent_error((t, leaf) in tree().prop_filter("two tasks at least", |t| t.done.len() > 1).prop_flat_map(|t| { let n = t.done.len(); (Just(t), 1..n) })) {
        // A leaf no task names as parent or dependency: detaching it changes nothing else.
        prop_assume!(!t.parents.contains(&leaf) && !t.deps.iter().any(|d| d.contains(&leaf)));
        for defect in [Defect::SecondRoot(leaf), Defect::MissingParent(leaf)] {
            let mut doc = document(&t);
            defect.apply(&mut doc);
            let report = validate(&doc);
            let codes: Vec<i32> = report.errors.iter().map(|e| e.code).collect();
            prop_assert_eq!(codes, vec![defect.code()], "{:?}", defect);
        }
    }

    #[test]
    fn arbitrary_json_never_panics(v in arbitrary_json()) {
        let _ = vouch_tasks::validate_str(&v.to_string());
        let _ = vouch_tasks::validate_str(&format!("[{v}]"));
        let _ = vouch_tasks::validate_str(&json!({"task": v.clone(), "children": [{"task": v}]}).to_string());
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,64}") {
        let _ = vouch_tasks::validate_str(&s);
    }
}

#[test]
fn a_chain_of_a_million_needs_no_deep_stack() {
    // T11: the chain is validated on a thread with a small stack.
    let mut text = String::from("[");
    let n = 1_000_000;
    for i in 0..n {
        if i > 0 {
            text.push(',');
            let _ = write!(
                text,
                r#"{{"id":"{}","name":"s","status":"pending","parent_id":"{}","dependencies":["{}"]}}"#,
                id(i),
                id(i - 1),
                id(i - 1)
            );
        } else {
            let _ = write!(
                text,
                r#"{{"id":"{}","name":"s","status":"pending"}}"#,
                id(0)
            );
        }
    }
    text.push(']');
    let report = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || vouch_tasks::validate_str(&text).unwrap())
        .unwrap()
        .join()
        .unwrap();
    assert!(report.is_valid(), "{:?}", report.errors.first());
}
