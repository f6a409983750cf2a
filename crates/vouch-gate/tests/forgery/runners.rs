//! The test runners the corpus forges evidence for: each with a real command, the output a
//! passing run prints, the output of a failing one, a run that selects no test, a command that
//! shares a significant token with the test command without running tests, and a test file in
//! its language (assertions marked `@A` and the comment syntax to hide them).

/// A test runner.
pub(crate) struct Runner {
    pub(crate) name: &'static str,
    /// The test command a report names.
    pub(crate) command: &'static str,
    /// What a passing run prints; it holds the runner's success line, used as a sentinel.
    pub(crate) passed: &'static str,
    /// A line of `passed` that an acceptance criterion expects.
    pub(crate) sentinel: &'static str,
    /// What a failing run prints.
    pub(crate) failed: &'static str,
    /// A command that selects no test, and what it prints (exit 0).
    pub(crate) nothing: (&'static str, &'static str),
    /// A command sharing a significant token with `command` that runs no test.
    pub(crate) lookalike: &'static str,
    /// The test file.
    pub(crate) test_path: &'static str,
    /// Its text: `@A` lines are assertions.
    pub(crate) test_text: &'static str,
    /// How a line is commented out in its language.
    pub(crate) comment: &'static str,
    /// A text of the test file, and what it becomes with a test marked skipped.
    pub(crate) skip: (&'static str, &'static str),
    /// The test command with a flag that builds or lists tests without running them, and what
    /// it prints (exit 0).
    pub(crate) listing: (&'static str, &'static str),
}

pub(crate) const RUNNERS: [Runner; 12] = [
    Runner {
        name: "cargo",
        command: "cargo test --release --workspace",
        passed: "running 4 tests\ntest add ... ok\ntest sub ... ok\ntest mul ... ok\ntest div ... ok\n\ntest result: ok. 4 passed; 0 failed; 0 ignored\n",
        sentinel: "test result: ok. 4 passed",
        failed: "running 4 tests\ntest add ... FAILED\n\ntest result: FAILED. 3 passed; 1 failed\n",
        nothing: (
            "cargo test --release --workspace no_such_test",
            "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 4 filtered out\n",
        ),
        lookalike: "cargo build --release --workspace",
        test_path: "tests/calc.rs",
        test_text: "#[test]\nfn adds() {\n@A    assert!(calc::add(2, 2) == 4);\n}\n#[test]\nfn subtracts() {\n@A    assert!(calc::sub(4, 2) == 2);\n@A    assert!(calc::sub(2, 4) == -2);\n}\n",
        comment: "// ",
        skip: ("#[test]\nfn adds", "#[test]\n#[ignore]\nfn adds"),
        listing: (
            "cargo test --release --workspace --no-run",
            "    Finished `release` profile [optimized] target(s) in 0.05s\n  Executable unittests src/lib.rs (target/release/deps/calc-1a2b)\n",
        ),
    },
    Runner {
        name: "pytest",
        command: "python -m pytest tests/test_api.py -q",
        passed: "....\n4 passed in 0.12s\n",
        sentinel: "4 passed",
        failed: "..F.\nFAILED tests/test_api.py::test_list - AssertionError\n1 failed, 3 passed in 0.15s\n",
        nothing: (
            "python -m pytest tests/test_api.py -q -k no_such_test",
            "4 deselected in 0.01s\n",
        ),
        lookalike: "python -m py_compile tests/test_api.py",
        test_path: "tests/test_api.py",
        test_text: "from app import api\n\ndef test_list():\n@A    assert api.list() == []\n\ndef test_add():\n@A    assert api.add('x') == ['x']\n@A    assert len(api.list()) == 1\n",
        comment: "# ",
        skip: ("def test_list", "@pytest.mark.skip\ndef test_list"),
        listing: (
            "python -m pytest tests/test_api.py -q --collect-only",
            "tests/test_api.py::test_list\ntests/test_api.py::test_add\n",
        ),
    },
    Runner {
        name: "go test",
        command: "go test ./...",
        passed: "ok  \texample.com/app\t0.012s\nok  \texample.com/app/calc\t0.004s\n",
        sentinel: "ok  \texample.com/app/calc",
        failed: "--- FAIL: TestAdd (0.00s)\n    calc_test.go:9: got 5, want 4\nFAIL\nFAIL\texample.com/app/calc\t0.004s\n",
        nothing: (
            "go test ./... -run NoSuchTest",
            "ok  \texample.com/app\t0.010s [no tests to run]\nok  \texample.com/app/calc\t0.003s [no tests to run]\n",
        ),
        lookalike: "go vet ./...",
        test_path: "calc/calc_test.go",
        test_text: "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n@A\tif Add(2, 2) != 4 { t.Fatal(\"add\") }\n@A\tif Add(1, 2) != 3 { t.Fatal(\"add\") }\n@A\tif Add(0, 0) != 0 { t.Fatal(\"add\") }\n}\n",
        comment: "// ",
        skip: (
            "func TestAdd(t *testing.T) {\n",
            "func TestAdd(t *testing.T) {\n\tt.Skip(\"later\")\n",
        ),
        listing: (
            "go test ./... -list .",
            "TestAdd\nok  \texample.com/app/calc\t0.002s\n",
        ),
    },
    Runner {
        name: "jest",
        command: "npx jest --ci",
        passed: "PASS src/calc.test.js\n  ✓ adds (2 ms)\n\nTests:       4 passed, 4 total\nTest Suites: 1 passed, 1 total\n",
        sentinel: "Tests:       4 passed, 4 total",
        failed: "FAIL src/calc.test.js\n  ✕ adds (3 ms)\n\nTests:       1 failed, 3 passed, 4 total\n",
        nothing: (
            "npx jest --ci -t no_such_test",
            "Test Suites: 1 skipped, 0 of 1 total\nTests:       4 skipped, 4 total\n",
        ),
        lookalike: "npx eslint --ci src/calc.test.js",
        test_path: "src/calc.test.js",
        test_text: "const { add } = require('./calc');\n\ntest('adds', () => {\n@A  expect(add(2, 2)).toBe(4);\n@A  expect(add(1, 2)).toBe(3);\n@A  expect(add(0, 0)).toBe(0);\n});\n",
        comment: "// ",
        skip: ("test('adds'", "test.skip('adds'"),
        listing: ("npx jest --ci --listTests", "/app/src/calc.test.js\n"),
    },
    Runner {
        name: "vitest",
        command: "npx vitest run",
        passed: " ✓ src/calc.test.ts (4 tests) 3ms\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)\n",
        sentinel: "Tests  4 passed (4)",
        failed: " ❯ src/calc.test.ts (4 tests | 1 failed) 5ms\n\n Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)\n",
        nothing: (
            "npx vitest run no_such_file",
            "No test files found, exiting with code 0\n",
        ),
        lookalike: "npx tsc --noEmit run",
        test_path: "src/calc.test.ts",
        test_text: "import { expect, test } from 'vitest';\nimport { add } from './calc';\n\ntest('adds', () => {\n@A  expect(add(2, 2)).toBe(4);\n@A  expect(add(1, 2)).toBe(3);\n});\n",
        comment: "// ",
        skip: ("test('adds'", "test.skip('adds'"),
        listing: ("npx vitest list", "src/calc.test.ts > adds\n"),
    },
    Runner {
        name: "mocha",
        command: "npx mocha test/calc.spec.js",
        passed: "\n  calc\n    ✓ adds\n    ✓ subtracts\n\n  4 passing (8ms)\n",
        sentinel: "4 passing",
        failed: "\n  calc\n    1) adds\n\n  3 passing (9ms)\n  1 failing\n",
        nothing: (
            "npx mocha test/calc.spec.js --grep no_such_test",
            "\n\n  0 passing (1ms)\n\n",
        ),
        lookalike: "npx prettier --check test/calc.spec.js",
        test_path: "test/calc.spec.js",
        test_text: "const assert = require('assert');\nconst { add } = require('../calc');\n\ndescribe('calc', () => {\n  it('adds', () => {\n@A    assert.strictEqual(add(2, 2), 4);\n@A    assert.strictEqual(add(1, 2), 3);\n  });\n});\n",
        comment: "// ",
        skip: ("it('adds'", "it.skip('adds'"),
        listing: (
            "npx mocha test/calc.spec.js --dry-run",
            "\n  calc\n    ✓ adds\n\n",
        ),
    },
    Runner {
        name: "rspec",
        command: "bundle exec rspec spec/calc_spec.rb",
        passed: "....\n\nFinished in 0.01 seconds (files took 0.1 seconds to load)\n4 examples, 0 failures\n",
        sentinel: "4 examples, 0 failures",
        failed: "..F.\n\nFailures:\n  1) Calc adds\n\n4 examples, 1 failure\n",
        nothing: (
            "bundle exec rspec spec/calc_spec.rb --tag no_such_tag",
            "Run options: include {:no_such_tag=>true}\n\nAll examples were filtered out\n\nFinished in 0.001 seconds\n0 examples, 0 failures\n",
        ),
        lookalike: "bundle exec rubocop spec/calc_spec.rb",
        test_path: "spec/calc_spec.rb",
        test_text: "require 'calc'\n\nRSpec.describe Calc do\n  it 'adds' do\n@A    expect(Calc.add(2, 2)).to eq(4)\n@A    expect(Calc.add(1, 2)).to eq(3)\n  end\nend\n",
        comment: "# ",
        skip: ("it 'adds'", "xit 'adds'"),
        listing: (
            "bundle exec rspec spec/calc_spec.rb --dry-run",
            "..\n\nFinished in 0.001 seconds\n2 examples, 0 failures\n",
        ),
    },
    Runner {
        name: "maven",
        command: "mvn -q test",
        passed: "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS\n",
        sentinel: "Tests run: 4, Failures: 0",
        failed: "[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE\n",
        nothing: (
            "mvn -q test -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false",
            "[INFO] Tests run: 0, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS\n",
        ),
        lookalike: "mvn -q compile",
        test_path: "src/test/java/CalcTest.java",
        test_text: "import static org.junit.jupiter.api.Assertions.*;\n\nclass CalcTest {\n  @Test void adds() {\n@A    assertEquals(4, Calc.add(2, 2));\n@A    assertEquals(3, Calc.add(1, 2));\n  }\n}\n",
        comment: "// ",
        skip: ("@Test void adds", "@Disabled @Test void adds"),
        listing: (
            "mvn -q test -DskipTests",
            "[INFO] Tests are skipped.\n[INFO] BUILD SUCCESS\n",
        ),
    },
    Runner {
        name: "gradle",
        command: "./gradlew test --tests CalcTest",
        passed: "> Task :test\n\nCalcTest > adds() PASSED\nCalcTest > subtracts() PASSED\n\nBUILD SUCCESSFUL in 3s\n",
        sentinel: "CalcTest > adds() PASSED",
        failed: "> Task :test FAILED\n\nCalcTest > adds() FAILED\n\nBUILD FAILED in 3s\n",
        nothing: (
            "./gradlew test --tests NoSuchTest",
            "> Task :test\nNo tests found for given includes: [NoSuchTest](--tests filter)\n\nBUILD SUCCESSFUL in 2s\n",
        ),
        lookalike: "./gradlew assemble --tests CalcTest",
        test_path: "src/test/kotlin/CalcTest.kt",
        test_text: "import kotlin.test.*\n\nclass CalcTest {\n    @Test fun adds() {\n@A        assertEquals(4, add(2, 2))\n@A        assertEquals(3, add(1, 2))\n    }\n}\n",
        comment: "// ",
        skip: ("@Test fun adds", "@Ignore @Test fun adds"),
        listing: (
            "./gradlew test --tests CalcTest -x test",
            "> Task :compileTestKotlin\n\nBUILD SUCCESSFUL in 2s\n",
        ),
    },
    Runner {
        name: "dotnet",
        command: "dotnet test Calc.Tests",
        passed: "Passed!  - Failed:     0, Passed:     4, Skipped:     0, Total:     4, Duration: 12 ms\n",
        sentinel: "Passed:     4",
        failed: "Failed!  - Failed:     1, Passed:     3, Skipped:     0, Total:     4, Duration: 15 ms\n",
        nothing: (
            "dotnet test Calc.Tests --filter NoSuchTest",
            "No test matches the given testcase filter `NoSuchTest` in /app/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll\n",
        ),
        lookalike: "dotnet build Calc.Tests",
        test_path: "Calc.Tests/CalcTests.cs",
        test_text: "public class CalcTests {\n    [Fact] public void Adds() {\n@A        Assert.Equal(4, Calc.Add(2, 2));\n@A        Assert.Equal(3, Calc.Add(1, 2));\n    }\n}\n",
        comment: "// ",
        skip: (
            "[Fact] public void Adds",
            "[Fact(Skip = \"later\")] public void Adds",
        ),
        listing: (
            "dotnet test Calc.Tests --list-tests",
            "The following Tests are available:\n    Adds\n",
        ),
    },
    Runner {
        name: "phpunit",
        command: "vendor/bin/phpunit tests/CalcTest.php",
        passed: "PHPUnit 11.0.0\n\n....                                                                4 / 4 (100%)\n\nOK (4 tests, 6 assertions)\n",
        sentinel: "OK (4 tests, 6 assertions)",
        failed: "PHPUnit 11.0.0\n\n..F.\n\nFAILURES!\nTests: 4, Assertions: 6, Failures: 1.\n",
        nothing: (
            "vendor/bin/phpunit tests/CalcTest.php --filter NoSuchTest",
            "PHPUnit 11.0.0\n\nNo tests executed!\n",
        ),
        lookalike: "php -l tests/CalcTest.php",
        test_path: "tests/CalcTest.php",
        test_text: "<?php\nclass CalcTest extends TestCase {\n    public function testAdds(): void {\n@A        $this->assertSame(4, add(2, 2));\n@A        $this->assertSame(3, add(1, 2));\n    }\n}\n",
        comment: "// ",
        skip: (
            "public function testAdds(): void {\n",
            "public function testAdds(): void {\n        $this->markTestSkipped('later');\n",
        ),
        listing: (
            "vendor/bin/phpunit tests/CalcTest.php --list-tests",
            "Available tests:\n - CalcTest::testAdds\n",
        ),
    },
    Runner {
        name: "ctest",
        command: "ctest --test-dir build --output-on-failure",
        passed: "Test project /app/build\n    Start 1: calc\n1/1 Test #1: calc .............................   Passed    0.01 sec\n\n100% tests passed, 0 tests failed out of 1\n",
        sentinel: "100% tests passed",
        failed: "Test project /app/build\n1/1 Test #1: calc .............................***Failed    0.01 sec\n\n0% tests passed, 1 tests failed out of 1\n",
        nothing: (
            "ctest --test-dir build --output-on-failure -R no_such_test",
            "Test project /app/build\nNo tests were found!!!\n",
        ),
        lookalike: "cmake --build build --output-on-failure",
        test_path: "tests/calc_test.cpp",
        test_text: "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Adds) {\n@A    EXPECT_EQ(add(2, 2), 4);\n@A    ASSERT_EQ(add(1, 2), 3);\n}\n",
        comment: "// ",
        skip: (
            "TEST(Calc, Adds) {\n",
            "TEST(Calc, Adds) {\n    GTEST_SKIP();\n",
        ),
        listing: (
            "ctest --test-dir build --output-on-failure --show-only",
            "Test project /app/build\n  Test #1: calc\n\nTotal Tests: 1\n",
        ),
    },
];

impl Runner {
    /// Returns the test file as written: assertions kept.
    pub(crate) fn test_file(&self) -> String {
        self.test_text.replace("@A", "")
    }

    /// Returns the test file with every assertion commented out.
    pub(crate) fn test_file_commented(&self) -> String {
        self.test_text
            .lines()
            .map(|l| match l.strip_prefix("@A") {
                Some(rest) => format!("{}{}", self.comment, rest.trim_start()),
                None => l.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    /// Returns the test file with all but its first assertion deleted.
    pub(crate) fn test_file_weakened(&self) -> String {
        let mut kept = false;
        self.test_text
            .lines()
            .filter_map(|l| match l.strip_prefix("@A") {
                Some(rest) if !kept => {
                    kept = true;
                    Some(rest.to_owned())
                }
                Some(_) => None,
                None => Some(l.to_owned()),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    /// Returns the test file with one test marked skipped.
    pub(crate) fn test_file_skipped(&self) -> String {
        let file = self.test_file();
        assert!(
            file.contains(self.skip.0),
            "{}: no `{}`",
            self.name,
            self.skip.0
        );
        file.replacen(self.skip.0, self.skip.1, 1)
    }

    /// Returns the test file with one more assertion than it had.
    pub(crate) fn test_file_strengthened(&self) -> String {
        let first = self
            .test_text
            .lines()
            .find_map(|l| l.strip_prefix("@A"))
            .unwrap_or_default();
        self.test_file()
            .replacen(first, &format!("{first}\n{first}"), 1)
    }
}
