//! `tengen analysis` (issue 41, first part): KataGo's JSON analysis protocol on the
//! playout search, one query a line, each answer a JSON line with the query's id; bad
//! lines answered with an error line and the next query still answered.

use crate::common::gtp::run_once;

fn lines(input: &str) -> Vec<serde_json::Value> {
    let (out, err) = run_once(&["analysis", "-model", "none", "-config", "x.cfg"], input);
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}\n{err}")))
        .collect()
}

#[test]
fn analyses_the_asked_turns_and_reports_from_blacks_side() {
    let q = r#"{"id":"a","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7.5,"boardXSize":9,"boardYSize":9,"analyzeTurns":[0,1,2],"maxVisits":30,"includeOwnership":true,"overrideSettings":{"reportAnalysisWinratesAs":"BLACK"}}"#;
    let r = lines(&format!("{q}\n"));
    assert_eq!(r.len(), 3, "{r:?}");
    for (turn, v) in r.iter().enumerate() {
        assert_eq!(v["id"], "a");
        assert_eq!(v["turnNumber"], turn);
        assert_eq!(v["isDuringSearch"], false);
        let infos = v["moveInfos"].as_array().unwrap();
        assert!(!infos.is_empty());
        assert_eq!(infos[0]["order"], 0);
        assert!(infos[0]["move"].is_string() && infos[0]["pv"].is_array());
        assert_eq!(v["ownership"].as_array().unwrap().len(), 81);
        let player = if turn % 2 == 0 { "B" } else { "W" };
        assert_eq!(v["rootInfo"]["currentPlayer"], player);
        let w = v["rootInfo"]["winrate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&w));
    }
}

#[test]
fn bad_lines_get_an_error_and_the_next_query_is_answered() {
    let input = [
        "this is not json",
        r#"{"moves":[]}"#,
        r#"{"id":"off","moves":[["B","Z99"]],"boardXSize":9,"boardYSize":9}"#,
        r#"{"id":"twice","moves":[["B","D4"],["W","D4"]],"boardXSize":9,"boardYSize":9}"#,
        r#"{"id":"big","moves":[],"boardXSize":40,"boardYSize":40}"#,
        &format!(r#"{{"id":"long","pad":"{}"}}"#, "x".repeat(2 << 20)),
        r#"{"id":"v","action":"query_version"}"#,
        r#"{"id":"t","action":"terminate","terminateId":"a"}"#,
        r#"{"id":"ok","moves":[],"boardXSize":9,"boardYSize":9,"maxVisits":10}"#,
    ]
    .join("\n");
    let r = lines(&format!("{input}\n"));
    let errors: Vec<&serde_json::Value> = r.iter().filter(|v| v.get("error").is_some()).collect();
    assert_eq!(errors.len(), 6, "{r:?}");
    assert!(errors
        .iter()
        .any(|e| e["id"] == "off" && e["field"] == "moves"));
    assert!(errors.iter().any(|e| e["id"] == "twice"));
    assert!(errors
        .iter()
        .any(|e| e["id"] == "big" && e["field"] == "boardXSize"));
    assert!(r
        .iter()
        .any(|v| v["action"] == "query_version" && v["id"] == "v"));
    assert!(r
        .iter()
        .any(|v| v["action"] == "terminate" && v["terminateId"] == "a"));
    let last = r.last().unwrap();
    assert_eq!(last["id"], "ok");
    assert!(last["moveInfos"].as_array().is_some_and(|m| !m.is_empty()));
}
