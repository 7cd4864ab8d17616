//! A small arithmetic evaluator for the local `calculate` tool: + - * / % ^, parentheses,
//! unary minus, decimals, and sqrt/abs/round. Bounded input and nesting, clear errors (which
//! go back to Claude as an is_error tool_result).

const MAX_LEN: usize = 500;
const MAX_DEPTH: usize = 64;

pub fn evaluate(expr: &str) -> Result<f64, String> {
    if expr.len() > MAX_LEN {
        return Err(format!("the expression is longer than {MAX_LEN} characters"));
    }
    let mut p = Parser { s: expr.as_bytes(), i: 0, depth: 0 };
    let v = p.expr()?;
    p.skip();
    if p.i < p.s.len() {
        return Err(format!("unexpected '{}' at position {}", p.s[p.i] as char, p.i + 1));
    }
    if !v.is_finite() {
        return Err("the result is not a finite number".into());
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Result<f64, String> {
        let mut v = self.term()?;
        loop {
            if self.eat(b'+') {
                v += self.term()?;
            } else if self.eat(b'-') {
                v -= self.term()?;
            } else {
                return Ok(v);
            }
        }
    }

    fn term(&mut self) -> Result<f64, String> {
        let mut v = self.power()?;
        loop {
            if self.eat(b'*') {
                v *= self.power()?;
            } else if self.eat(b'/') {
                let d = self.power()?;
                if d == 0.0 {
                    return Err("division by zero".into());
                }
                v /= d;
            } else if self.eat(b'%') {
                let d = self.power()?;
                if d == 0.0 {
                    return Err("modulo by zero".into());
                }
                v %= d;
            } else {
                return Ok(v);
            }
        }
    }

    /// `^` binds tighter than `*` and is right-associative.
    fn power(&mut self) -> Result<f64, String> {
        let base = self.unary()?;
        if self.eat(b'^') { Ok(base.powf(self.power()?)) } else { Ok(base) }
    }

    fn unary(&mut self) -> Result<f64, String> {
        if self.eat(b'-') {
            return Ok(-self.unary()?);
        }
        if self.eat(b'+') {
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<f64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("the expression is nested too deeply".into());
        }
        self.skip();
        let start = self.i;
        let v = if self.eat(b'(') {
            let v = self.expr()?;
            if !self.eat(b')') {
                return Err(format!("missing ')' for the '(' at position {}", start + 1));
            }
            v
        } else if self.s.get(self.i).is_some_and(|c| c.is_ascii_alphabetic()) {
            while self.s.get(self.i).is_some_and(|c| c.is_ascii_alphabetic()) {
                self.i += 1;
            }
            let name = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
            let f: fn(f64) -> f64 = match name {
                "sqrt" => f64::sqrt,
                "abs" => f64::abs,
                "round" => f64::round,
                "pi" => {
                    self.depth -= 1;
                    return Ok(std::f64::consts::PI);
                }
                _ => return Err(format!("unknown function '{name}' (known: sqrt, abs, round, pi)")),
            };
            if !self.eat(b'(') {
                return Err(format!("'{name}' needs parentheses, like {name}(2)"));
            }
            let arg = self.expr()?;
            if !self.eat(b')') {
                return Err(format!("missing ')' after the argument of {name}"));
            }
            if name == "sqrt" && arg < 0.0 {
                return Err("sqrt of a negative number".into());
            }
            f(arg)
        } else {
            while self.s.get(self.i).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
                self.i += 1;
            }
            let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
            if text.is_empty() {
                return Err(match self.s.get(self.i) {
                    Some(c) => format!("unexpected '{}' at position {}", *c as char, self.i + 1),
                    None => "the expression ends too early".into(),
                });
            }
            text.parse::<f64>().map_err(|_| format!("'{text}' is not a number"))?
        };
        self.depth -= 1;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::evaluate;

    #[test]
    fn arithmetic() {
        let cases = [
            ("1 + 2 * 3", 7.0),
            ("(1 + 2) * 3", 9.0),
            ("2 ^ 3 ^ 2", 512.0),
            ("-2 ^ 2", 4.0),
            ("10 / 4", 2.5),
            ("7 % 3", 1.0),
            ("sqrt(16) + abs(-2) + round(2.6)", 9.0),
            ("1.5e0", f64::NAN),
        ];
        for (e, want) in cases {
            match evaluate(e) {
                Ok(v) => assert_eq!(v, want, "{e}"),
                Err(_) => assert!(want.is_nan(), "{e}"),
            }
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        assert_eq!(evaluate("1 / 0").unwrap_err(), "division by zero");
        assert_eq!(evaluate("2 +").unwrap_err(), "the expression ends too early");
        assert_eq!(evaluate("2 $ 3").unwrap_err(), "unexpected '$' at position 3");
        assert!(evaluate("(1 + 2").unwrap_err().contains("missing ')'"));
        assert!(evaluate("foo(1)").unwrap_err().contains("unknown function"));
        assert!(evaluate(&"(".repeat(100)).unwrap_err().contains("nested"));
    }
}
