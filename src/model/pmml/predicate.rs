//! PMML predicates (PMML 4.4, "Predicates in TreeModel and Scorecard"): read
//! once, evaluated with the standard's three-valued logic (`None` = UNKNOWN,
//! which an Attribute treats as not matching).

use super::fields::{FieldView, Seen};
use super::xml::{Element, array_tokens, fail, parse_number};
use crate::error::Result;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    IsMissing,
    IsNotMissing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bool {
    And,
    Or,
    Xor,
    Surrogate,
}

/// A constant as the field compares it.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    Number(f64),
    Text(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    True,
    False,
    Simple {
        field: String,
        op: Op,
        value: Option<Const>,
    },
    Set {
        field: String,
        is_in: bool,
        values: Vec<Const>,
    },
    Compound {
        op: Bool,
        children: Vec<Predicate>,
    },
}

const NAMES: [&str; 5] = [
    "SimplePredicate",
    "SimpleSetPredicate",
    "CompoundPredicate",
    "True",
    "False",
];

/// The one predicate among `e`'s children (others must be `Extension`s or `allowed`).
pub fn the_predicate<'a>(e: &'a Element, allowed: &[&str]) -> Result<&'a Element> {
    let mut found = None;
    for c in &e.children {
        if NAMES.contains(&c.name.as_str()) {
            if found.is_some() {
                return Err(fail(c, &format!("a second predicate inside {}", e.at())));
            }
            found = Some(c);
        } else if c.name != "Extension" && !allowed.contains(&c.name.as_str()) {
            return Err(super::fields::unknown(c, &e.name));
        }
    }
    found.ok_or_else(|| fail(e, "no predicate"))
}

fn constant(e: &Element, view: &FieldView, v: &str) -> Result<Const> {
    if view.numeric {
        parse_number(v)
            .filter(|x| !x.is_nan())
            .map(Const::Number)
            .ok_or_else(|| {
                fail(
                    e,
                    &format!("\"{v}\" is not a number, but the field is numeric"),
                )
            })
    } else {
        Ok(Const::Text(v.to_string()))
    }
}

/// Reads a predicate element; every field must be one of `fields`.
pub fn read(e: &Element, fields: &BTreeMap<String, FieldView>) -> Result<Predicate> {
    let field_of = |e: &Element| -> Result<(String, &FieldView)> {
        let name = e.req("field")?;
        let view = fields.get(name).ok_or_else(|| {
            fail(
                e,
                &format!("the field '{name}' is not an active field of the model's MiningSchema"),
            )
        })?;
        Ok((name.to_string(), view))
    };
    Ok(match e.name.as_str() {
        "True" => Predicate::True,
        "False" => Predicate::False,
        "SimplePredicate" => {
            let (field, view) = field_of(e)?;
            let op = match e.req("operator")? {
                "equal" => Op::Equal,
                "notEqual" => Op::NotEqual,
                "lessThan" => Op::Less,
                "lessOrEqual" => Op::LessOrEqual,
                "greaterThan" => Op::Greater,
                "greaterOrEqual" => Op::GreaterOrEqual,
                "isMissing" => Op::IsMissing,
                "isNotMissing" => Op::IsNotMissing,
                other => return Err(fail(e, &format!("unknown operator '{other}'"))),
            };
            let value = match op {
                Op::IsMissing | Op::IsNotMissing => None,
                _ => Some(constant(e, view, e.req("value")?)?),
            };
            if !view.numeric
                && !matches!(
                    op,
                    Op::Equal | Op::NotEqual | Op::IsMissing | Op::IsNotMissing
                )
            {
                return Err(fail(
                    e,
                    &format!(
                        "an ordering comparison on the non-numeric field '{field}' is not \
                         evaluated by cfx"
                    ),
                ));
            }
            for c in &e.children {
                if c.name != "Extension" {
                    return Err(super::fields::unknown(c, &e.name));
                }
            }
            Predicate::Simple { field, op, value }
        }
        "SimpleSetPredicate" => {
            let (field, view) = field_of(e)?;
            let is_in = match e.req("booleanOperator")? {
                "isIn" => true,
                "isNotIn" => false,
                other => return Err(fail(e, &format!("unknown booleanOperator '{other}'"))),
            };
            let mut arr = None;
            for c in &e.children {
                match c.name.as_str() {
                    "Extension" => {}
                    "Array" if arr.is_none() => arr = Some(c),
                    _ => return Err(super::fields::unknown(c, &e.name)),
                }
            }
            let arr = arr.ok_or_else(|| fail(e, "no <Array>"))?;
            let values = array_tokens(arr)?
                .iter()
                .map(|t| constant(arr, view, t))
                .collect::<Result<_>>()?;
            Predicate::Set {
                field,
                is_in,
                values,
            }
        }
        "CompoundPredicate" => {
            let op = match e.req("booleanOperator")? {
                "and" => Bool::And,
                "or" => Bool::Or,
                "xor" => Bool::Xor,
                "surrogate" => Bool::Surrogate,
                other => return Err(fail(e, &format!("unknown booleanOperator '{other}'"))),
            };
            let mut children = Vec::new();
            for c in &e.children {
                if NAMES.contains(&c.name.as_str()) {
                    children.push(read(c, fields)?);
                } else if c.name != "Extension" {
                    return Err(super::fields::unknown(c, &e.name));
                }
            }
            if children.len() < 2 {
                return Err(fail(e, "a CompoundPredicate needs at least two predicates"));
            }
            Predicate::Compound { op, children }
        }
        _ => return Err(super::fields::unknown(e, "a predicate's place")),
    })
}

impl Predicate {
    /// The fields the predicate reads.
    pub fn fields<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Predicate::True | Predicate::False => {}
            Predicate::Simple { field, .. } | Predicate::Set { field, .. } => {
                if !out.contains(&field.as_str()) {
                    out.push(field);
                }
            }
            Predicate::Compound { children, .. } => {
                for c in children {
                    c.fields(out);
                }
            }
        }
    }

    /// The numeric constants the predicate compares with (the points where its
    /// truth on a numeric field can change).
    pub fn constants(&self, out: &mut Vec<f64>) {
        match self {
            Predicate::True | Predicate::False => {}
            Predicate::Simple { value, .. } => {
                if let Some(Const::Number(x)) = value {
                    out.push(*x);
                }
            }
            Predicate::Set { values, .. } => out.extend(values.iter().filter_map(|v| match v {
                Const::Number(x) => Some(*x),
                Const::Text(_) => None,
            })),
            Predicate::Compound { children, .. } => {
                for c in children {
                    c.constants(out);
                }
            }
        }
    }

    /// The predicate's truth for a row in which every field reads as `value`
    /// (the caller checks that it reads one field only).
    pub fn eval(&self, value: &Seen) -> Option<bool> {
        match self {
            Predicate::True => Some(true),
            Predicate::False => Some(false),
            Predicate::Simple { op, value: c, .. } => match (op, value) {
                (Op::IsMissing, v) => Some(*v == Seen::Missing),
                (Op::IsNotMissing, v) => Some(*v != Seen::Missing),
                (_, Seen::Missing) => None,
                (op, v) => {
                    let ord = compare(v, c.as_ref()?)?;
                    Some(match op {
                        Op::Equal => ord.is_eq(),
                        Op::NotEqual => ord.is_ne(),
                        Op::Less => ord.is_lt(),
                        Op::LessOrEqual => ord.is_le(),
                        Op::Greater => ord.is_gt(),
                        Op::GreaterOrEqual => ord.is_ge(),
                        Op::IsMissing | Op::IsNotMissing => unreachable!("matched above"),
                    })
                }
            },
            Predicate::Set { is_in, values, .. } => {
                if *value == Seen::Missing {
                    return None;
                }
                let hit = values
                    .iter()
                    .any(|c| compare(value, c).is_some_and(|o| o.is_eq()));
                Some(hit == *is_in)
            }
            Predicate::Compound { op, children } => {
                let mut vals = children.iter().map(|c| c.eval(value));
                match op {
                    // PMML's three-valued and/or/xor (any UNKNOWN in xor is UNKNOWN).
                    Bool::And => {
                        let mut unknown = false;
                        for v in vals {
                            match v {
                                Some(false) => return Some(false),
                                None => unknown = true,
                                Some(true) => {}
                            }
                        }
                        if unknown { None } else { Some(true) }
                    }
                    Bool::Or => {
                        let mut unknown = false;
                        for v in vals {
                            match v {
                                Some(true) => return Some(true),
                                None => unknown = true,
                                Some(false) => {}
                            }
                        }
                        if unknown { None } else { Some(false) }
                    }
                    Bool::Xor => {
                        let mut acc = false;
                        for v in vals {
                            acc ^= v?;
                        }
                        Some(acc)
                    }
                    Bool::Surrogate => vals.find_map(|v| v),
                }
            }
        }
    }
}

fn compare(v: &Seen, c: &Const) -> Option<std::cmp::Ordering> {
    match (v, c) {
        (Seen::Number(x), Const::Number(y)) => x.partial_cmp(y),
        (Seen::Text(x), Const::Text(y)) => Some(x.cmp(y)),
        _ => None,
    }
}
