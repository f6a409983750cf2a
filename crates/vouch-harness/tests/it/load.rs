//! Test files that do not load: every problem at its line and column, before anything runs.

use vouch_harness::spec::parse;

use crate::support::fixtures;

fn errors(yaml: &str) -> String {
    match parse(&fixtures().join("broken.vouch.yaml"), yaml) {
        Ok(_) => panic!("the test loaded"),
        Err(e) => e
            .to_string()
            .replace(&fixtures().display().to_string(), "<fixtures>"),
    }
}

#[test]
fn unknown_keys_are_errors_with_their_place() {
    let yaml = r#"name: typo
prompt: hi
tiemout: 30
assertions:
  - tool: Read
    calld: false
    params: {file_path: "*.env"}
  - sequence: [Read]
    ordered: true
  - stdout:
      review: "Says hello"
      treshold: 8
"#;
    insta::assert_snapshot!(errors(yaml), @r"
    <fixtures>/broken.vouch.yaml:3:1: unknown key `tiemout` (at `tiemout`) (hint: did you mean `timeout`?)
    <fixtures>/broken.vouch.yaml:6:5: unknown key `calld` (at `assertions[0].calld`) (hint: did you mean `called`?)
    <fixtures>/broken.vouch.yaml:9:5: unknown key `ordered` (at `assertions[1].ordered`)
    <fixtures>/broken.vouch.yaml:12:7: unknown key `treshold` (at `assertions[2].stdout.treshold`) (hint: did you mean `threshold`?)
    ");
}

#[test]
fn contradictory_counts_are_errors() {
    let yaml = r"name: contradictions
prompt: hi
assertions:
  - tool: Read
    called: false
    min_calls: 1
  - tool: Read
    called: true
    max_calls: 0
  - tool: Read
    min_calls: 3
    max_calls: 1
  - tool: Read
    call_count: 5
    max_calls: 2
";
    insta::assert_snapshot!(errors(yaml), @r"
    <fixtures>/broken.vouch.yaml:5:13: `called: false` contradicts `min_calls: 1` (at `assertions[0].called`) (hint: write `max_calls: 0`, or drop `called: false`)
    <fixtures>/broken.vouch.yaml:8:13: `called: true` contradicts a count of 0 (at `assertions[1].called`) (hint: write `called: false`)
    <fixtures>/broken.vouch.yaml:11:16: `min_calls: 3` is more than `max_calls: 1` (at `assertions[2].min_calls`)
    <fixtures>/broken.vouch.yaml:14:17: `call_count: 5` contradicts min_calls/max_calls (at `assertions[3].call_count`)
    ");
}

#[test]
fn invalid_patterns_and_values_are_errors() {
    let yaml = r#"name: patterns
prompt: hi
repeat: 0
pass_rate: 1.5
timeout: soon
assertions:
  - tool: Bash
    params: {command: "^npm (test$"}
  - tool: Bash
    params: {command: {glob: "[unclosed"}}
  - tool: Read
    nth_call_params: {first: {file_path: x}}
  - stdout:
      contains: "hello"
"#;
    insta::assert_snapshot!(errors(yaml), @r#"
    <fixtures>/broken.vouch.yaml:3:9: `repeat` must be at least 1 (at `repeat`)
    <fixtures>/broken.vouch.yaml:4:12: `pass_rate` is a share from 0 to 1, found `1.5` (at `pass_rate`) (hint: `pass_rate: 0.6` passes when 3 of 5 runs pass)
    <fixtures>/broken.vouch.yaml:5:10: `soon` is not a duration (at `timeout`) (hint: seconds, or `90s`, `5m`, `1h`)
    <fixtures>/broken.vouch.yaml:8:23: invalid regex `^npm (test$`: unclosed group (at `assertions[0].params.command`)
    <fixtures>/broken.vouch.yaml:10:30: invalid glob `[unclosed`: unclosed character class; missing ']' (at `assertions[1].params.command`)
    <fixtures>/broken.vouch.yaml:12:23: `first` is not a call number (at `assertions[2].nth_call_params.first`) (hint: calls are counted from 1)
    <fixtures>/broken.vouch.yaml:14:7: a stdout assertion needs `review`: the criteria, in words (at `assertions[3].stdout`)
    <fixtures>/broken.vouch.yaml:14:17: `stdout.contains` was removed: stdout assertions are LLM reviews (at `assertions[3].stdout.contains`) (hint: write `review: "<criteria in words>"` (and `threshold:` from 1 to 10))
    "#);
}

#[test]
fn a_test_needs_a_name_a_prompt_and_assertions() {
    insta::assert_snapshot!(errors("agent: claude\n"), @r"
    <fixtures>/broken.vouch.yaml:1:1: a test needs a `name` (at `name`)
    <fixtures>/broken.vouch.yaml:1:1: a test needs a `prompt` (or a recorded `session` to evaluate) (at `prompt`)
    <fixtures>/broken.vouch.yaml:1:1: a test needs `assertions` (at `assertions`)
    ");
    insta::assert_snapshot!(errors("name: x\nprompt: y\nassertions: []\n"), @"<fixtures>/broken.vouch.yaml:3:13: a test needs at least one assertion (at `assertions`)");
    insta::assert_snapshot!(errors("name: [unclosed\n"), @"<fixtures>/broken.vouch.yaml:1:7: not valid YAML: error: line 1 column 7: unclosed bracket '['");
}

#[test]
fn a_glob_that_looks_like_a_regex_is_a_warning() {
    let test = parse(
        &fixtures().join("warned.vouch.yaml"),
        "name: w\nprompt: p\nassertions:\n  - tool: Bash\n    params: {command: \"npm.*test\"}\n",
    )
    .unwrap();
    let warnings: Vec<String> = test
        .warnings
        .iter()
        .map(|w| format!("{}: {w}", w.location))
        .collect();
    insta::assert_snapshot!(warnings.join("\n"), @r#"5:23: `npm.*test` is read as a glob (at `assertions[0].params.command`) (hint: to mean a regular expression, write `{regex: "npm.*test", anchored: false}`)"#);
}

#[test]
fn review_thresholds_and_samples_are_checked_at_load() {
    let yaml = r#"name: reviews
prompt: p
assertions:
  - stdout:
      review: "Says it is done"
      threshold: 11
  - stdout:
      review: "Says it is done"
      threshold: 7.5
      samples: 0
  - stdout:
      review: "   "
"#;
    insta::assert_snapshot!(errors(yaml), @r"
    <fixtures>/broken.vouch.yaml:6:18: `threshold` is a whole number from 1 to 10, found `11` (at `assertions[0].stdout.threshold`) (hint: a score of at least the threshold passes)
    <fixtures>/broken.vouch.yaml:9:18: `threshold` is a whole number from 1 to 10, found `7.5` (at `assertions[1].stdout.threshold`) (hint: a score of at least the threshold passes)
    <fixtures>/broken.vouch.yaml:10:16: `samples` is how many times to grade: at least 1 (at `assertions[1].stdout.samples`)
    <fixtures>/broken.vouch.yaml:12:7: a stdout assertion needs `review`: the criteria, in words (at `assertions[2].stdout`)
    ");
}
