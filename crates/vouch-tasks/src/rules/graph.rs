//! The rules across tasks: duplicate ids, dependency references and cycles (T5), the tree —
//! one root, parents that exist, no parent cycles, everything reachable (T6) — and
//! provenance. Every algorithm is iterative (T11): a chain of a million tasks is a loop, not a
//! million stack frames.

use crate::document::Document;
use crate::issue::{Issue, code};
use crate::model::{OriginType, Status};
use crate::rules::fields::{Dep, Info};
use crate::rules::ids::{IdKey, NONE, resolve};

/// The kept dependency edges, in compressed rows: task `i` depends on
/// `target[start[i]..start[i + 1]]`; `at` is each edge's position in `dependencies`.
#[derive(Debug, Default)]
pub(crate) struct Edges {
    pub(crate) start: Vec<u32>,
    pub(crate) target: Vec<u32>,
    pub(crate) at: Vec<u32>,
}

impl Edges {
    /// Returns the range of task `i`'s edges.
    pub(crate) fn of(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i] as usize..self.start[i + 1] as usize
    }
}

/// Checks everything across tasks. `deps` holds every task's dependencies, in task order.
pub(crate) fn check(
    doc: &Document<'_>,
    infos: &[Info<'_>],
    deps: &[Dep<'_>],
    out: &mut Vec<Issue>,
) {
    let n = infos.len();
    let name = |i: usize| {
        infos[i]
            .id
            .as_ref()
            .map_or_else(|| doc.path(i), |k| k.text().into_owned())
    };

    // Every reference at once: the dependencies (already in one list), then parents, then
    // originals.
    let mut refs: Vec<&IdKey<'_>> = Vec::with_capacity(deps.len() + n);
    refs.extend(deps.iter().map(|d| &d.id));
    let parent_ref: Vec<u32> = infos
        .iter()
        .map(|info| match &info.parent_id {
            Some(p) => {
                refs.push(p);
                index(refs.len() - 1)
            }
            None => NONE,
        })
        .collect();
    let originals: Vec<(usize, usize)> = infos
        .iter()
        .enumerate()
        .filter_map(|(i, info)| {
            info.original_task_id.as_deref().map(|o| {
                refs.push(o);
                (i, refs.len() - 1)
            })
        })
        .collect();
    let ids: Vec<Option<&IdKey<'_>>> = infos.iter().map(|i| i.id.as_ref()).collect();
    let resolved = resolve(&ids, &refs);
    drop(refs);
    let target = |r: usize| Some(resolved.targets[r] as usize).filter(|&t| t != NONE as usize);
    for &(i, first) in &resolved.duplicates {
        out.push(
            Issue::error(
                code::VALIDATION,
                Some(i),
                "id",
                format!("duplicates the id of the task at {}", doc.path(first)),
            )
            .expected("an id no other task has")
            .actual(name(i)),
        );
    }

    // Dependencies: references, self-references, repeats; the rest become edges.
    let mut edges = Edges {
        start: Vec::with_capacity(n + 1),
        target: Vec::with_capacity(deps.len()),
        at: Vec::with_capacity(deps.len()),
    };
    for (i, info) in infos.iter().enumerate() {
        let first = edges.target.len();
        edges.start.push(index(first));
        let range = info.deps.start as usize..info.deps.end as usize;
        for (k, dep) in range.clone().zip(&deps[range]) {
            let field = || format!("dependencies[{}]", dep.at);
            match target(k) {
                None => out.push(
                    Issue::error(
                        code::INVALID_DEPENDENCY,
                        Some(i),
                        field(),
                        format!("Dependency task '{}' not found", dep.id.text()),
                    )
                    .expected("the id of a task in the document")
                    .actual(dep.id.text().as_ref()),
                ),
                Some(t) if t == i => out.push(
                    Issue::error(
                        code::INVALID_DEPENDENCY,
                        Some(i),
                        field(),
                        "Task cannot depend on itself",
                    )
                    .expected("another task's id")
                    .actual(dep.id.text().as_ref()),
                ),
                Some(t) if edges.target[first..].contains(&index(t)) => out.push(
                    Issue::warning(
                        code::INVALID_DEPENDENCY,
                        Some(i),
                        field(),
                        "lists the same dependency again",
                    )
                    .actual(dep.id.text().as_ref()),
                ),
                Some(t) => {
                    edges.target.push(index(t));
                    edges.at.push(dep.at);
                }
            }
        }
    }
    edges.start.push(index(edges.target.len()));
    for cycle in dependency_cycles(&edges) {
        let first = cycle[0];
        let ids: Vec<String> = cycle.iter().map(|&t| name(t)).collect();
        out.push(
            Issue::error(
                code::CIRCULAR_DEPENDENCY,
                Some(first),
                "dependencies",
                format!("Circular dependency: {}", ids.join(" -> ")),
            )
            .expected("dependencies without cycles")
            .cycle(ids),
        );
    }

    // The tree: parents.
    let mut parent: Vec<u32> = vec![NONE; n];
    for (i, info) in infos.iter().enumerate() {
        let r = parent_ref[i];
        if let Some(p) = info.parent_id.as_ref() {
            match target(r as usize) {
                Some(t) => parent[i] = index(t),
                None => {
                    let p = p.text();
                    out.push(
                        Issue::error(
                            code::INVALID_PARENT,
                            Some(i),
                            "parent_id",
                            format!("Task '{}' has invalid parent_id: '{p}'", name(i)),
                        )
                        .expected("the id of a task in the document")
                        .actual(p.as_ref()),
                    );
                }
            }
        }
        if let Some(enclosing) = doc.enclosing(i) {
            let agrees = parent[i] == index(enclosing);
            let named_elsewhere = info.parent_id.is_none() || parent[i] != NONE;
            if !agrees && named_elsewhere {
                let expected = infos[enclosing].id.as_ref().map(IdKey::text);
                out.push(
                    Issue::error(
                        code::INVALID_PARENT,
                        Some(i),
                        "parent_id",
                        "must be the id of the enclosing node's task",
                    )
                    .expected(expected.as_deref().unwrap_or_default())
                    .actual(
                        info.parent_id
                            .as_ref()
                            .map_or(serde_json::Value::Null, |p| p.text().as_ref().into()),
                    ),
                );
            }
        }
    }
    let roots: Vec<usize> = (0..n).filter(|&i| infos[i].root).collect();
    let mut document = |reason: String, actual: serde_json::Value| {
        let mut issue = Issue::error(code::INVALID_TREE, None, "parent_id", reason)
            .expected("exactly one task without parent_id")
            .actual(actual);
        "$".clone_into(&mut issue.path);
        out.push(issue);
    };
    match roots.as_slice() {
        [] if n == 0 => document(
            "No root task found: the document holds no task".to_owned(),
            serde_json::Value::Null,
        ),
        [] => document("No root task found".to_owned(), serde_json::Value::Null),
        [_] => {}
        several => {
            let names: Vec<String> = several.iter().map(|&r| name(r)).collect();
            document(
                format!("Multiple root tasks found: {}", names.join(", ")),
                names.into(),
            );
        }
    }
    for cycle in parent_cycles(&parent) {
        let first = cycle[0];
        let ids: Vec<String> = cycle.iter().map(|&t| name(t)).collect();
        out.push(
            Issue::error(
                code::INVALID_TREE,
                Some(first),
                "parent_id",
                format!("Circular parent-child relationship: {}", ids.join(" -> ")),
            )
            .expected("parents without cycles")
            .cycle(ids),
        );
    }
    if let [root] = roots.as_slice() {
        let reach = reachability(&parent, *root);
        let inside = |t: usize| matches!(reach[t], Reach::Root | Reach::Yes);
        for (i, r) in reach.iter().enumerate() {
            let Reach::Under(cause) = *r else { continue };
            let why = match reach[cause] {
                Reach::InCycle => format!("its ancestor {} is in a parent cycle", name(cause)),
                Reach::Missing => format!(
                    "its ancestor {} has a parent_id that names no task",
                    name(cause)
                ),
                _ => format!("its ancestor {} is not under the root", name(cause)),
            };
            out.push(
                Issue::error(
                    code::INVALID_TREE,
                    Some(i),
                    "parent_id",
                    format!(
                        "Task '{}' is not reachable from the root task: {why}",
                        name(i)
                    ),
                )
                .expected(format!("a descendant of the root task {}", name(*root))),
            );
        }
        for i in (0..n).filter(|&i| inside(i)) {
            for e in edges.of(i) {
                let t = edges.target[e] as usize;
                if !inside(t) {
                    out.push(
                        Issue::error(
                            code::INVALID_TREE,
                            Some(i),
                            format!("dependencies[{}]", edges.at[e]),
                            format!(
                                "depends on task '{}', which is outside the root's tree",
                                name(t)
                            ),
                        )
                        .expected("a task of the same tree")
                        .actual(name(t)),
                    );
                }
            }
        }
    }

    // Provenance: the original of a link or an archive.
    for &(i, r) in &originals {
        let info = &infos[i];
        let original = info
            .original_task_id
            .as_deref()
            .map(IdKey::text)
            .unwrap_or_default();
        let is_copy = matches!(
            info.origin_type,
            Some(OriginType::Link | OriginType::Archive)
        );
        match target(r) {
            Some(t) if t == i => out.push(
                Issue::error(
                    code::VALIDATION,
                    Some(i),
                    "original_task_id",
                    "names the task itself",
                )
                .expected("another task's id")
                .actual(original.as_ref()),
            ),
            Some(t) if is_copy && infos[t].status != Some(Status::Completed) => {
                let origin = info.origin_type.map_or("", OriginType::as_str);
                let status = infos[t].status.map_or("unknown", Status::as_str);
                out.push(
                    Issue::error(
                        code::VALIDATION,
                        Some(i),
                        "original_task_id",
                        format!("a {origin} must name a completed task; '{original}' is {status}"),
                    )
                    .expected("a completed task")
                    .actual(status),
                );
            }
            None if is_copy => out.push(
                Issue::warning(
                    code::VALIDATION,
                    Some(i),
                    "original_task_id",
                    format!("'{original}' is not in the document, so its status cannot be checked"),
                )
                .expected("a completed task")
                .actual(original.as_ref()),
            ),
            _ => {}
        }
    }
}

/// Returns `i` as a task index of the compact arrays.
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(NONE)
}

/// Returns one cycle per strongly connected group of tasks in the dependency graph, each as
/// task indexes starting and ending at its first task in document order. Kahn's algorithm
/// first removes every task that is in no cycle and leads to none — all of them, in a valid
/// document — then Tarjan's algorithm, with an explicit stack, groups what is left.
pub(crate) fn dependency_cycles(edges: &Edges) -> Vec<Vec<usize>> {
    let n = edges.start.len().saturating_sub(1);
    // Peel off tasks nobody depends on, repeatedly.
    let mut dependents = vec![0u32; n];
    for &t in &edges.target {
        dependents[t as usize] += 1;
    }
    let mut free: Vec<usize> = (0..n).filter(|&i| dependents[i] == 0).collect();
    let mut removed = vec![false; n];
    while let Some(v) = free.pop() {
        removed[v] = true;
        for e in edges.of(v) {
            let w = edges.target[e] as usize;
            dependents[w] -= 1;
            if dependents[w] == 0 {
                free.push(w);
            }
        }
    }
    if removed.iter().all(|&r| r) {
        return Vec::new();
    }
    let next = |v: usize| {
        edges
            .of(v)
            .map(|e| edges.target[e] as usize)
            .filter(|&w| !removed[w])
    };
    const UNSEEN: usize = usize::MAX;
    let mut order = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut counter = 0usize;
    let mut components: Vec<Vec<usize>> = Vec::new();
    // The call stack of the recursive algorithm: (task, edges looked at so far).
    let mut calls: Vec<(usize, usize)> = Vec::new();
    for start in (0..n).filter(|&v| !removed[v]) {
        if order[start] != UNSEEN {
            continue;
        }
        order[start] = counter;
        low[start] = counter;
        counter += 1;
        stack.push(start);
        on_stack[start] = true;
        calls.push((start, 0));
        while let Some(&mut (v, ref mut seen)) = calls.last_mut() {
            if let Some(w) = next(v).nth(*seen) {
                *seen += 1;
                if order[w] == UNSEEN {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(up, _)) = calls.last() {
                low[up] = low[up].min(low[v]);
            }
            if low[v] == order[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    components.push(component);
                }
            }
        }
    }
    let mut member = vec![usize::MAX; n];
    for (c, component) in components.iter().enumerate() {
        for &t in component {
            member[t] = c;
        }
    }
    let mut cycles: Vec<Vec<usize>> = components
        .iter()
        .enumerate()
        .map(|(c, component)| {
            let first = component.iter().copied().min().unwrap_or(0);
            cycle_through(first, |v| {
                next(v)
                    .filter(|&w| member[w] == c)
                    .collect::<Vec<_>>()
                    .into_iter()
            })
        })
        .collect();
    cycles.sort_by_key(|c| c[0]);
    cycles
}

/// Returns a shortest cycle from `start` back to itself, following `next` (which stays within
/// one strongly connected group, so a cycle exists).
fn cycle_through<I: Iterator<Item = usize>>(start: usize, next: impl Fn(usize) -> I) -> Vec<usize> {
    let mut came_from: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in next(v) {
            if w == start {
                let mut path = vec![start, v];
                let mut at = v;
                while at != start {
                    at = came_from[&at];
                    path.push(at);
                }
                // `path` runs backwards: start, v, …, start.
                path.reverse();
                return path;
            }
            if w != start && !came_from.contains_key(&w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start, start]
}

/// Returns each cycle of the parent relation once (each task has at most one parent, so the
/// cycles are disjoint), starting and ending at its first task in document order.
pub(crate) fn parent_cycles(parent: &[u32]) -> Vec<Vec<usize>> {
    let n = parent.len();
    // 0: not seen; 1: on the current walk; 2: done.
    let mut state = vec![0u8; n];
    let mut cycles = Vec::new();
    let mut walk: Vec<usize> = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        walk.clear();
        let mut v = start;
        loop {
            state[v] = 1;
            walk.push(v);
            let p = parent[v] as usize;
            match parent[v] {
                NONE => break,
                _ if state[p] == 0 => v = p,
                _ if state[p] == 1 => {
                    let from = walk.iter().position(|&w| w == p).unwrap_or(0);
                    let members = &walk[from..];
                    let first = members.iter().copied().min().unwrap_or(p);
                    let at = members.iter().position(|&w| w == first).unwrap_or(0);
                    let mut cycle: Vec<usize> = members[at..]
                        .iter()
                        .chain(&members[..at])
                        .copied()
                        .collect();
                    cycle.push(first);
                    cycles.push(cycle);
                    break;
                }
                _ => break,
            }
        }
        for &w in &walk {
            state[w] = 2;
        }
    }
    cycles.sort_by_key(|c| c[0]);
    cycles
}

/// Whether a task's ancestors lead to the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The root itself.
    Root,
    /// A descendant of the root.
    Yes,
    /// In a parent cycle.
    InCycle,
    /// Its `parent_id` names no task (or it is another root).
    Missing,
    /// Below a task that is `InCycle` or `Missing`: the index of that task.
    Under(usize),
}

/// Decides [`Reach`] for every task, memoized along each walk up the parents.
pub(crate) fn reachability(parent: &[u32], root: usize) -> Vec<Reach> {
    let n = parent.len();
    let mut reach: Vec<Option<Reach>> = vec![None; n];
    reach[root] = Some(Reach::Root);
    let mut on_walk = vec![false; n];
    let mut walk: Vec<usize> = Vec::new();
    for start in 0..n {
        if reach[start].is_some() {
            continue;
        }
        walk.clear();
        let mut v = start;
        // Climb until a decided task, the top of a chain, or a cycle.
        let outcome = loop {
            if let Some(r) = reach[v] {
                break r;
            }
            if on_walk[v] {
                // A cycle: every task from `v` on the walk is in it.
                let from = walk.iter().position(|&w| w == v).unwrap_or(0);
                for &w in &walk[from..] {
                    reach[w] = Some(Reach::InCycle);
                    on_walk[w] = false;
                }
                walk.truncate(from);
                break Reach::InCycle;
            }
            on_walk[v] = true;
            walk.push(v);
            match parent[v] {
                NONE => {
                    reach[v] = Some(Reach::Missing);
                    on_walk[v] = false;
                    walk.pop();
                    break Reach::Missing;
                }
                p => v = p as usize,
            }
        };
        // Everything below on the walk inherits, pointing at the cause.
        let inherited = match outcome {
            Reach::Under(c) => Reach::Under(c),
            Reach::InCycle | Reach::Missing => Reach::Under(v),
            Reach::Root | Reach::Yes => Reach::Yes,
        };
        for &w in &walk {
            on_walk[w] = false;
            reach[w] = Some(inherited);
        }
    }
    reach
        .into_iter()
        .map(|r| r.unwrap_or(Reach::Missing))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(lists: &[&[u32]]) -> Edges {
        let mut edges = Edges::default();
        for list in lists {
            edges.start.push(index(edges.target.len()));
            edges.target.extend_from_slice(list);
            edges.at.extend(list.iter().map(|_| 0));
        }
        edges.start.push(index(edges.target.len()));
        edges
    }

    #[test]
    fn one_cycle_per_strongly_connected_group() {
        // 0 -> 1 -> 2 -> 0, 3 -> 4 -> 3, 5 -> 0.
        let cycles = dependency_cycles(&graph(&[&[1], &[2], &[0], &[4], &[3], &[0]]));
        assert_eq!(cycles, vec![vec![0, 1, 2, 0], vec![3, 4, 3]]);
        assert!(dependency_cycles(&graph(&[&[1, 2], &[2], &[]])).is_empty());
    }

    #[test]
    fn a_million_long_chain_needs_no_deep_stack() {
        let n = 1_000_000;
        let lists: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                if i + 1 < n {
                    vec![index(i + 1)]
                } else {
                    vec![]
                }
            })
            .collect();
        let refs: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
        assert!(dependency_cycles(&graph(&refs)).is_empty());
        // Even a cycle a million long is found without recursion.
        let mut lists = lists;
        lists[n - 1] = vec![0];
        let refs: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
        assert_eq!(dependency_cycles(&graph(&refs))[0].len(), n + 1);
        let parent: Vec<u32> = (0..n)
            .map(|i| i.checked_sub(1).map_or(NONE, index))
            .collect();
        assert!(parent_cycles(&parent).is_empty());
        assert!(
            reachability(&parent, 0)
                .iter()
                .skip(1)
                .all(|r| *r == Reach::Yes)
        );
    }

    #[test]
    fn detached_parent_cycles_are_found_and_what_hangs_below_is_unreachable() {
        // 0 is the root; 1 -> 2 -> 3 -> 1 is a detached cycle; 4's parent is 2; 5's is missing.
        let parent = vec![NONE, 3, 1, 2, 2, NONE];
        assert_eq!(parent_cycles(&parent), vec![vec![1, 3, 2, 1]]);
        let reach = reachability(&parent, 0);
        assert_eq!(reach[1], Reach::InCycle);
        assert_eq!(reach[4], Reach::Under(2));
        assert_eq!(reach[5], Reach::Missing);
    }
}
