//! The environment a command an agent wrote gets: an allowlist, not the caller's environment
//! minus a list. A secret under a name nobody thought to hide (`GITHUB_TOKEN`,
//! `MY_SERVICE_API_KEY`) never reaches the command unless it is passed by its exact name.

use std::ffi::OsString;

/// The variables every command gets when the caller has them: where programs are, who and
/// where the user is, language and time zone, the terminal and the temporary folder.
pub const BASE: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR",
];

/// Which variables pass into a command: [`BASE`], the `LC_*` locale variables (unless a name
/// looks like a secret), and the names
/// or `PREFIX*` patterns a configuration adds (`Security.PassEnv`). A pattern never passes a
/// name that looks like a secret (see [`looks_secret`]); such a variable passes only by its
/// exact name. Names in `hidden` never pass, whatever else says so.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Exact names and `PREFIX*` patterns passed beside the base.
    pub pass: Vec<String>,
    /// Names that never pass (the models' keys).
    pub hidden: Vec<String>,
}

impl EnvPolicy {
    /// Returns true when the variable `name` passes.
    pub fn passes(&self, name: &str) -> bool {
        if self.hidden.iter().any(|h| h == name) {
            return false;
        }
        // A locale variable never looks like a secret: one that does (`LC_KEY`) is no locale.
        if BASE.contains(&name) || (name.starts_with("LC_") && !looks_secret(name)) {
            return true;
        }
        self.pass.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix) && !looks_secret(name),
            None => p == name,
        })
    }

    /// Returns the variables of `vars` that pass, in their order.
    pub fn filter(
        &self,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        vars.into_iter()
            .filter(|(k, _)| k.to_str().is_some_and(|k| self.passes(k)))
            .collect()
    }

    /// Sets `command`'s environment to the variables of this process that pass.
    pub fn apply(&self, command: &mut std::process::Command) {
        command.env_clear().envs(self.filter(std::env::vars_os()));
    }
}

/// Returns true when a variable named `name` looks like it holds a secret: its name holds
/// `KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `CREDENTIAL`, `AUTH` or `COOKIE`, in any
/// case.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
        "COOKIE",
    ]
    .iter()
    .any(|w| upper.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> Vec<(OsString, OsString)> {
        names
            .iter()
            .map(|n| (OsString::from(n), OsString::from("v")))
            .collect()
    }

    #[test]
    fn only_the_base_and_what_is_passed_gets_through() {
        let policy = EnvPolicy {
            pass: vec!["CARGO_*".into(), "MY_SERVICE_API_KEY".into()],
            hidden: vec!["OPENAI_API_KEY".into()],
        };
        let kept = policy.filter(vars(&[
            "PATH",
            "HOME",
            "LC_ALL",
            "GITHUB_TOKEN",
            "OTHER_API_KEY",
            "CARGO_HOME",
            "CARGO_REGISTRY_TOKEN",
            "MY_SERVICE_API_KEY",
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
        ]));
        let names: Vec<_> = kept.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(
            names,
            ["PATH", "HOME", "LC_ALL", "CARGO_HOME", "MY_SERVICE_API_KEY"]
        );
    }

    #[test]
    fn hidden_wins_over_passed() {
        let policy = EnvPolicy {
            pass: vec!["OPENAI_API_KEY".into()],
            hidden: vec!["OPENAI_API_KEY".into()],
        };
        assert!(!policy.passes("OPENAI_API_KEY"));
    }

    proptest::proptest! {
        #[test]
        fn a_pattern_never_passes_a_secret_looking_name(name in "[A-Z_]{1,12}(KEY|TOKEN|SECRET)[A-Z_]{0,6}") {
            let policy = EnvPolicy { pass: vec!["*".into()], hidden: Vec::new() };
            proptest::prop_assert!(!policy.passes(&name));
        }
    }
}
