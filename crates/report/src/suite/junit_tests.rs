#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::*;

use crate::suite::sample;

fn mixed_report(dir: &Path) -> SuiteReport {
    sample::report(
        dir,
        sample::Mix {
            tests: 6,
            failed: 1,
            error: 1,
            flaky: 1,
            skipped: 1,
        },
    )
}

/// The Jenkins JUnit XSD with the two attributes quick-junit and GitLab use beyond it.
fn extended_xsd(dir: &Path) -> PathBuf {
    let xsd = std::fs::read_to_string(
        retrace_test_support::package_dir().join("tests/data/junit-10.xsd"),
    )
    .unwrap();
    let testcase_group = r#"<xs:attribute name="group" type="xs:string"/>
        </xs:complexType>
    </xs:element>

    <xs:element name="testsuite">"#;
    let testsuites_errors = r#"<xs:attribute name="errors" type="xs:string" />
        </xs:complexType>
    </xs:element>

</xs:schema>"#;
    assert_eq!(xsd.matches(testcase_group).count(), 1);
    assert_eq!(xsd.matches(testsuites_errors).count(), 1);
    let xsd = xsd
        .replace(
            testcase_group,
            &testcase_group.replacen(
                "/>",
                r#"/>
            <xs:attribute name="file" type="xs:string"/>"#,
                1,
            ),
        )
        .replace(
            testsuites_errors,
            &testsuites_errors.replacen(
                "/>",
                r#"/>
            <xs:attribute name="skipped" type="xs:string" />"#,
                1,
            ),
        );
    let path = dir.join("junit-extended.xsd");
    std::fs::write(&path, xsd).unwrap();
    path
}

/// Runs `xmllint --schema`; `None` when xmllint is missing off CI (the test is skipped).
fn xmllint(xsd: &Path, xml: &Path) -> Option<std::process::Output> {
    if std::process::Command::new("xmllint")
        .arg("--version")
        .output()
        .is_err()
    {
        let message = "xmllint is missing: apt-get install libxml2-utils (scripts/setup.sh)";
        assert!(!retrace_test_support::requirements::on_ci(), "{message}");
        eprintln!("SKIPPED: {message}");
        return None;
    }
    Some(
        std::process::Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(xsd)
            .arg(xml)
            .output()
            .unwrap(),
    )
}

#[test]
fn the_junit_file_validates_against_the_jenkins_junit_xsd() {
    let dir = tempfile::tempdir().unwrap();
    let report = mixed_report(dir.path());
    let xml = dir.path().join("junit.xml");
    std::fs::write(&xml, to_junit(&report, Path::new("reports")).unwrap()).unwrap();
    let xsd = extended_xsd(dir.path());
    let Some(output) = xmllint(&xsd, &xml) else {
        return;
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The schema does bite: an element it does not know is refused.
    let text = std::fs::read_to_string(&xml).unwrap();
    std::fs::write(
        &xml,
        text.replacen("<failure", "<failed", 1)
            .replacen("</failure>", "</failed>", 1),
    )
    .unwrap();
    let output = xmllint(&xsd, &xml).unwrap();
    assert!(!output.status.success());
}

#[test]
fn each_status_maps_to_what_ci_services_read() {
    let dir = tempfile::tempdir().unwrap();
    let report = mixed_report(dir.path());
    let xml = to_junit(&report, Path::new("out/reports")).unwrap();
    let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    assert_eq!(parsed.test_suites.len(), 1);
    let suite = &parsed.test_suites[0];
    assert_eq!(suite.name.as_str(), "demo-suite");
    assert_eq!(
        (suite.tests, suite.failures, suite.errors, suite.skipped),
        (6, 1, 1, 1)
    );
    let cases: Vec<_> = suite.test_cases.iter().collect();
    assert_eq!(cases.len(), 6);
    for (case, test) in cases.iter().zip(&report.tests) {
        assert_eq!(case.name.as_str(), test.id);
        assert_eq!(
            case.classname.as_ref().unwrap().as_str(),
            "demo-suite.flows"
        );
        assert_eq!(
            case.extra.get("file").map(quick_junit::XmlString::as_str),
            Some(test.file.to_str().unwrap())
        );
        assert_eq!(case.time, Some(Duration::from_millis(test.wall_ms)));
    }
    let by_status = |status: TestStatus| {
        let index = report
            .tests
            .iter()
            .position(|test| test.status == status)
            .unwrap();
        cases[index]
    };

    let failed = by_status(TestStatus::Failed);
    let TestCaseStatus::NonSuccess {
        kind,
        message,
        ty,
        description,
        ..
    } = &failed.status
    else {
        panic!("{:?}", failed.status);
    };
    assert_eq!(*kind, NonSuccessKind::Failure);
    assert_eq!(
        message.as_ref().unwrap().as_str(),
        "step 3 (left_click at (220, 311)): mismatch, distance 26 > 10"
    );
    assert_eq!(ty.as_ref().unwrap().as_str(), "mismatch");
    assert!(
        description
            .as_ref()
            .unwrap()
            .as_str()
            .contains("visual distance 26 > 10")
    );
    let out = failed.system_out.as_ref().unwrap().as_str();
    let index = report
        .tests
        .iter()
        .position(|test| test.status == TestStatus::Failed)
        .unwrap();
    let evidence = format!("out/reports/evidence/flow-{:03}", index + 1);
    assert!(
        out.contains(&format!("[[ATTACHMENT|{evidence}/expected.png]]")),
        "{out}"
    );
    assert!(
        out.contains(&format!("[[ATTACHMENT|{evidence}/actual.png]]")),
        "{out}"
    );
    assert!(
        out.contains(&format!("[[ATTACHMENT|{evidence}/final.png]]")),
        "{out}"
    );
    assert!(out.contains("rerun: retrace replay flows/flow-"), "{out}");

    let error = by_status(TestStatus::Error);
    let TestCaseStatus::NonSuccess { kind, message, .. } = &error.status else {
        panic!("{:?}", error.status);
    };
    assert_eq!(*kind, NonSuccessKind::Error);
    assert!(message.as_ref().unwrap().as_str().contains("timed out"));

    let flaky = by_status(TestStatus::Flaky);
    let TestCaseStatus::Success { flaky_runs } = &flaky.status else {
        panic!("{:?}", flaky.status);
    };
    assert_eq!(flaky_runs.len(), 1);
    assert_eq!(flaky_runs[0].kind, NonSuccessKind::Error);
    assert_eq!(
        flaky_runs[0].message.as_ref().unwrap().as_str(),
        "attempt 1: the browser crashed (target closed)"
    );
    assert!(xml.contains("<flakyError"), "{xml}");

    let skipped = by_status(TestStatus::Skipped);
    assert!(
        matches!(&skipped.status, TestCaseStatus::Skipped { message: Some(message), .. } if message.as_str().contains("marked invalid"))
    );
    assert!(
        matches!(by_status(TestStatus::Passed).status, TestCaseStatus::Success { ref flaky_runs } if flaky_runs.is_empty())
    );
}
