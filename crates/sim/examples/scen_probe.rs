use airtcp_sim::Scenario;
fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let sets: Vec<(String, String)> = std::env::args().skip(2).map(|a| { let (p, v) = a.split_once('=').unwrap(); (p.to_string(), v.to_string()) }).collect();
    match Scenario::from_toml_str(&text, "bulk.toml", &sets) {
        Ok(s) => println!("{}", serde_json::to_string_pretty(&s.to_json()).unwrap()),
        Err(e) => println!("ERR {e}"),
    }
}
