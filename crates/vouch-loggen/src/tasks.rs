//! A task tree of the task protocol, for timing validation.

use std::io::{self, Write};

use crate::rng::Rng;

/// A generated, valid task tree: one root, each other task's parent a random earlier task,
/// random dependencies on earlier tasks (so no cycle), about a fifth completed, and an input
/// schema (with conforming inputs) on a share of the tasks.
#[derive(Debug, Clone)]
pub struct TaskTree {
    /// How many tasks.
    pub tasks: usize,
    /// The average number of dependencies per task (each task gets 0 to twice this many).
    pub deps_average: usize,
    /// One task in this many carries an input schema (0: none).
    pub schema_every: usize,
    /// The random seed.
    pub seed: u64,
}

impl Default for TaskTree {
    fn default() -> TaskTree {
        TaskTree {
            tasks: 10_000,
            deps_average: 2,
            schema_every: 10,
            seed: 7,
        }
    }
}

/// Formats 128 random bits as a UUID v4.
fn uuid(rng: &mut Rng) -> String {
    let (a, b) = (rng.next(), rng.next());
    let a = (a & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000;
    let b = (b & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

impl TaskTree {
    /// Writes the tree as a JSON array of tasks.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut rng = Rng::new(self.seed);
        let ids: Vec<String> = (0..self.tasks).map(|_| uuid(&mut rng)).collect();
        out.write_all(b"[\n")?;
        let mut deps: Vec<usize> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            if i > 0 {
                out.write_all(b",\n")?;
            }
            let completed = i > 0 && rng.below(5) == 0;
            write!(
                out,
                "{{\"id\":\"{id}\",\"name\":\"task {i}\",\"priority\":{}",
                rng.below(4)
            )?;
            if i > 0 {
                let parent = &ids[usize::try_from(rng.below(i as u64)).unwrap_or(0)];
                write!(out, ",\"parent_id\":\"{parent}\"")?;
            }
            if completed {
                write!(
                    out,
                    ",\"status\":\"completed\",\"progress\":1.0,\"started_at\":\"2026-11-01T09:00:00Z\",\"completed_at\":\"2026-11-01T09:05:00+00:00\",\"result\":{{\"ok\":true}}"
                )?;
            } else {
                out.write_all(b",\"status\":\"pending\",\"progress\":0.0")?;
            }
            deps.clear();
            if i > 0 && self.deps_average > 0 {
                let k = rng.below(2 * self.deps_average as u64 + 1);
                for _ in 0..k {
                    let t = usize::try_from(rng.below(i as u64)).unwrap_or(0);
                    if !deps.contains(&t) {
                        deps.push(t);
                    }
                }
            }
            out.write_all(b",\"dependencies\":[")?;
            for (n, &t) in deps.iter().enumerate() {
                let sep = if n > 0 { "," } else { "" };
                let required = if rng.below(4) == 0 { "false" } else { "true" };
                write!(
                    out,
                    "{sep}{{\"id\":\"{}\",\"required\":{required}}}",
                    ids[t]
                )?;
            }
            out.write_all(b"]")?;
            if self.schema_every > 0 && i % self.schema_every == 1 {
                write!(
                    out,
                    ",\"schemas\":{{\"type\":\"remote\",\"method\":\"http.request\",\"input_schema\":{{\"type\":\"object\",\"required\":[\"url\",\"method\"],\"properties\":{{\"url\":{{\"type\":\"string\",\"minLength\":8}},\"method\":{{\"enum\":[\"GET\",\"POST\"]}},\"retries\":{{\"type\":\"integer\",\"minimum\":0,\"maximum\":5}},\"headers\":{{\"type\":\"object\",\"additionalProperties\":{{\"type\":\"string\"}}}}}}}}}},\"inputs\":{{\"url\":\"https://example.com/items/{i}\",\"method\":\"GET\",\"retries\":{},\"headers\":{{\"accept\":\"application/json\"}}}}",
                    rng.below(6)
                )?;
            }
            out.write_all(b",\"created_at\":\"2026-11-01T08:00:00Z\"}")?;
        }
        out.write_all(b"\n]\n")
    }

    /// Writes a chain: task i depends on task i - 1, and is its child (`parent_id`), so the
    /// tree is `tasks` deep.
    pub fn write_chain(&self, out: &mut impl Write) -> io::Result<()> {
        let mut rng = Rng::new(self.seed);
        let ids: Vec<String> = (0..self.tasks).map(|_| uuid(&mut rng)).collect();
        out.write_all(b"[\n")?;
        for (i, id) in ids.iter().enumerate() {
            if i > 0 {
                let prev = &ids[i - 1];
                write!(
                    out,
                    ",\n{{\"id\":\"{id}\",\"name\":\"step {i}\",\"status\":\"pending\",\"parent_id\":\"{prev}\",\"dependencies\":[{{\"id\":\"{prev}\"}}]}}"
                )?;
            } else {
                write!(
                    out,
                    "{{\"id\":\"{id}\",\"name\":\"step 0\",\"status\":\"pending\"}}"
                )?;
            }
        }
        out.write_all(b"\n]\n")
    }
}
