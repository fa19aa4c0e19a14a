use super::*;
use crate::test_fixtures::fixture;

const SDK: &str = "rocprofv3/sdk1.0_counter_collection.csv";

fn parse(text: &str) -> Result<Vec<CounterDispatch>, AmdError> {
    parse_counter_csv(text.as_bytes())
}

fn error_of(text: &str) -> (usize, String) {
    match parse(text) {
        Err(AmdError::Output { line, reason, .. }) => (line, reason),
        Ok(d) => panic!("expected an error, parsed {} dispatches", d.len()),
    }
}

#[test]
fn reads_the_sdk_counter_collection_by_header_name() {
    // Expected values read with python's csv.DictReader from the fixture:
    // 4 rows, Dispatch_Id 1..4, SQ_WAVES 16384.0 each, End-Start = 52151, 49780, 46818, 48151 ns,
    // VGPR_Count 8, 8, 8, 12, SGPR_Count 16, Grid_Size 1048576, Workgroup_Size 64, Agent_Id "Agent 1".
    let dispatches = parse(&fixture(SDK)).unwrap();
    assert_eq!(dispatches.len(), 4);
    let ids: Vec<u64> = dispatches.iter().map(|d| d.dispatch_id).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    let durations: Vec<u64> = dispatches.iter().map(CounterDispatch::duration_ns).collect();
    assert_eq!(durations, [52151, 49780, 46818, 48151]);
    let vgprs: Vec<Option<u64>> = dispatches.iter().map(|d| d.vgpr_count).collect();
    assert_eq!(vgprs, [Some(8), Some(8), Some(8), Some(12)]);
    let first = &dispatches[0];
    assert_eq!(first.kernel, "void addition_kernel<float>(float*, float const*, float const*, int, int)");
    assert_eq!(first.agent.as_deref(), Some("Agent 1"));
    assert_eq!((first.grid_size, first.workgroup_size, first.sgpr_count), (Some(1048576), Some(64), Some(16)));
    assert_eq!((first.lds_block_size, first.scratch_size, first.accum_vgpr_count), (Some(0), Some(0), Some(0)));
    assert_eq!(first.start_ns, 3200098838431081);
    assert_eq!(first.counters.len(), 1);
    assert_eq!(first.counters.get("SQ_WAVES"), Some(&16384.0));
    assert_eq!(dispatches[3].kernel, "divide_kernel(float*, float const*, float const*, int, int)");
}

#[test]
fn rows_of_one_dispatch_group_into_one_counter_map() {
    // The fixture's first row again for two more counters of the same dispatch (grouping logic:
    // the recorded file has one counter per dispatch).
    let text = fixture(SDK);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let row = lines.next().unwrap();
    let extra = row.replace("\"SQ_WAVES\",16384.000000", "\"GRBM_COUNT\",1000.5");
    let more = row.replace("\"SQ_WAVES\",16384.000000", "\"GRBM_GUI_ACTIVE\",250");
    let dispatches = parse(&format!("{header}\n{row}\n{extra}\n\n{more}\n")).unwrap();
    assert_eq!(dispatches.len(), 1);
    let counters = &dispatches[0].counters;
    assert_eq!(counters.keys().map(String::as_str).collect::<Vec<_>>(), ["GRBM_COUNT", "GRBM_GUI_ACTIVE", "SQ_WAVES"]);
    assert_eq!(counters.get("GRBM_COUNT"), Some(&1000.5));
}

#[test]
fn header_without_a_required_column_names_it_at_line_1() {
    let text = fixture(SDK).replacen("\"Counter_Value\"", "\"Value\"", 1);
    let (line, reason) = error_of(&text);
    assert_eq!(line, 1);
    assert!(reason.contains("`Counter_Value`"), "{reason}");
    let display = parse(&text).unwrap_err().to_string();
    assert!(display.starts_with(TOOL), "{display}");
}

#[test]
fn empty_and_blank_first_line_are_errors() {
    assert_eq!(error_of("").0, 1);
    let (line, reason) = error_of("\n1,2,3\n");
    assert_eq!(line, 1);
    assert!(reason.contains("header"), "{reason}");
}

#[test]
fn header_only_is_no_dispatch() {
    let text = fixture(SDK);
    let header = text.lines().next().unwrap();
    assert!(parse(header).unwrap().is_empty());
}

#[test]
fn truncated_last_row_is_an_error_at_its_line() {
    let text = fixture(SDK);
    let cut = &text[..text.len() - 30];
    let (line, reason) = error_of(cut);
    assert_eq!(line, 5);
    assert!(reason.contains("no line break"), "{reason}");
    // Cut inside its last field (the field count still right): the same refusal, not a
    // shorter timestamp.
    let whole = text.trim_end();
    let (line, reason) = error_of(&whole[..whole.len() - 3]);
    assert_eq!(line, 5);
    assert!(reason.contains("no line break"), "{reason}");
    // A short row that does end its line is still caught by its field count.
    let (_, reason) = error_of(&format!("{}\n", &text[..text.len() - 30]));
    assert!(reason.contains("fields"), "{reason}");
}

#[test]
fn malformed_values_are_errors_naming_column_and_line() {
    let text = fixture(SDK);
    let bad_value = text.replacen("16384.000000", "n/a", 1);
    let (line, reason) = error_of(&bad_value);
    assert_eq!(line, 2);
    assert!(reason.contains("Counter_Value") && reason.contains("SQ_WAVES"), "{reason}");
    let bad_time = text.replacen(",3200098838483232", ",-5", 1);
    let (line, reason) = error_of(&bad_time);
    assert_eq!(line, 2);
    assert!(reason.contains("End_Timestamp"), "{reason}");
    let open_quote = text.replacen("\"void addition", "\"void \"addition", 1);
    assert_eq!(error_of(&open_quote).0, 2);
}

#[test]
fn a_counter_twice_or_two_kernels_for_one_dispatch_is_an_error() {
    let text = fixture(SDK);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let row = lines.next().unwrap();
    let (line, reason) = error_of(&format!("{header}\n{row}\n{row}\n"));
    assert_eq!(line, 3);
    assert!(reason.contains("twice"), "{reason}");
    let renamed = row.replace("void addition_kernel", "other_kernel").replace("SQ_WAVES", "GRBM_COUNT");
    let (line, reason) = error_of(&format!("{header}\n{row}\n{renamed}\n"));
    assert_eq!(line, 3);
    assert!(reason.contains("dispatch 1"), "{reason}");
}

#[test]
fn split_csv_handles_quotes_and_escaped_quotes() {
    assert_eq!(split_csv(r#"1,"a, b","say ""hi""",,x"#, 1).unwrap(), ["1", "a, b", "say \"hi\"", "", "x"]);
    assert!(split_csv("\"open", 7).is_err());
}

#[test]
fn reads_the_rocm_6_4_layout_with_integer_agent_and_exponent_values() {
    // python csv: Agent_Id "1", Counter_Value "0.00000000e+00" -> 0.0, Kernel_Id 7 and 16 ignored,
    // durations 6080 and 101359039 ns.
    let dispatches = parse(&fixture("rocprofv3/issue57-rocm6.4_counter_collection.csv")).unwrap();
    assert_eq!(dispatches.len(), 2);
    assert_eq!(dispatches[0].kernel, "__amd_rocclr_initHeap");
    assert_eq!(dispatches[0].agent.as_deref(), Some("1"));
    assert_eq!(dispatches[1].counters.get("MemUnitBusy"), Some(&0.0));
    let durations: Vec<u64> = dispatches.iter().map(CounterDispatch::duration_ns).collect();
    assert_eq!(durations, [6080, 101359039]);
}
