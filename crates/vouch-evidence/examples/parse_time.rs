//! Times `Script::parse` on each argument (a file's text, or the argument itself).
fn main() {
    for arg in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&arg).unwrap_or(arg);
        let t = std::time::Instant::now();
        let s = vouch_evidence::Script::parse(&text);
        println!("{:?} {:?} {}", t.elapsed(), s.unreadable(), text.len());
    }
}
