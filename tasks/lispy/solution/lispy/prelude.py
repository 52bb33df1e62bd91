"""The prelude: library procedures and macros written in lispy itself.

:data:`PRELUDE` is lispy source evaluated into the global environment by
:func:`load_prelude` when an :class:`~lispy.interpreter.Interpreter` starts.  It
needs most of the language to work (define, lambda, let, cond, quasiquote,
define-macro, define-syntax, error), which makes it a good end-to-end check.
"""

from __future__ import annotations

from lispy.environment import Environment
from lispy.evaluator import evaluate
from lispy.reader import read_all

PRELUDE = r"""
;;; ---------------------------------------------------------------- pairs
(define (caar x) (car (car x)))
(define (cadr x) (car (cdr x)))
(define (cdar x) (cdr (car x)))
(define (cddr x) (cdr (cdr x)))
(define (caddr x) (car (cddr x)))
(define (cdddr x) (cdr (cddr x)))
(define (cadddr x) (car (cdddr x)))

;;; ---------------------------------------------------------------- functions
(define (identity x) x)

;; (compose f g h) is (lambda args (f (g (apply h args))))
(define (compose . fs)
  (cond ((null? fs) identity)
        ((null? (cdr fs)) (car fs))
        (else (let ((f (car fs))
                    (g (apply compose (cdr fs))))
                (lambda args (f (apply g args)))))))

;;; ---------------------------------------------------------------- lists
(define (last-pair lst)
  (if (pair? (cdr lst)) (last-pair (cdr lst)) lst))

(define (last lst) (car (last-pair lst)))

;; (iota count [start [step]])
(define (iota n . opts)
  (let ((start (if (pair? opts) (car opts) 0))
        (step (if (and (pair? opts) (pair? (cdr opts))) (cadr opts) 1)))
    (let loop ((i (- n 1)) (acc '()))
      (if (< i 0)
          acc
          (loop (- i 1) (cons (+ start (* i step)) acc))))))

;; integers from a (inclusive) to b (exclusive)
(define (range a b) (iota (max 0 (- b a)) a))

(define (take lst n)
  (let loop ((lst lst) (n n) (acc '()))
    (if (= n 0) (reverse acc) (loop (cdr lst) (- n 1) (cons (car lst) acc)))))

(define (drop lst n)
  (if (= n 0) lst (drop (cdr lst) (- n 1))))

;; the first true value of (pred x), or #f
(define (any pred lst)
  (cond ((null? lst) #f)
        ((pred (car lst)) => identity)
        (else (any pred (cdr lst)))))

;; #t for an empty list, else #f or the value of pred on the last element
(define (every pred lst)
  (cond ((null? lst) #t)
        ((null? (cdr lst)) (pred (car lst)))
        ((pred (car lst)) (every pred (cdr lst)))
        (else #f)))

(define (count pred lst)
  (fold-left (lambda (n x) (if (pred x) (+ n 1) n)) 0 lst))

(define (remove pred lst)
  (filter (lambda (x) (not (pred x))) lst))

(define (delete x lst)
  (remove (lambda (y) (equal? x y)) lst))

;; keeps the first occurrence of each element (compared with equal?)
(define (delete-duplicates lst)
  (let loop ((lst lst) (seen '()))
    (cond ((null? lst) (reverse seen))
          ((member (car lst) seen) (loop (cdr lst) seen))
          (else (loop (cdr lst) (cons (car lst) seen))))))

(define (list-index pred lst)
  (let loop ((lst lst) (i 0))
    (cond ((null? lst) #f)
          ((pred (car lst)) i)
          (else (loop (cdr lst) (+ i 1))))))

(define (flatten x)
  (cond ((null? x) '())
        ((pair? x) (append (flatten (car x)) (flatten (cdr x))))
        (else (list x))))

(define (zip . lists) (apply map list lists))

(define (sum lst) (apply + lst))
(define (product lst) (apply * lst))

(define (assoc-ref alist key default)
  (let ((entry (assoc key alist)))
    (if entry (cdr entry) default)))

(define (string-repeat s n)
  (let loop ((n n) (acc ""))
    (if (<= n 0) acc (loop (- n 1) (string-append acc s)))))

;;; ---------------------------------------------------------------- promises
(define (make-promise thunk)
  (let ((done #f) (value #f))
    (lambda ()
      (if done
          value
          (let ((v (thunk)))
            (if done
                value
                (begin (set! done #t) (set! value v) v)))))))

(define (force promise) (promise))

;;; ---------------------------------------------------------------- macros
(define-macro (delay expr) `(make-promise (lambda () ,expr)))

(define-macro (swap! a b)
  (let ((tmp (gensym "tmp")))
    `(let ((,tmp ,a)) (set! ,a ,b) (set! ,b ,tmp))))

(define-macro (inc! var . by)
  `(set! ,var (+ ,var ,(if (pair? by) (car by) 1))))

(define-macro (dec! var . by)
  `(set! ,var (- ,var ,(if (pair? by) (car by) 1))))

(define-macro (assert expr)
  `(if ,expr #t (error "assertion failed:" ',expr)))

(define-syntax while
  (syntax-rules ()
    ((_ test body ...)
     (let %while-loop ()
       (when test body ... (%while-loop))))))

(define-syntax for
  (syntax-rules (in from to)
    ((_ x in lst body ...) (for-each (lambda (x) body ...) lst))
    ((_ x from a to b body ...)
     (do ((x a (+ x 1))) ((> x b)) body ...))))
"""


_cache: dict[str, list] = {}


def load_prelude(env: Environment) -> None:
    """Evaluate every form of :data:`PRELUDE`, in order, in `env` (normally the
    global environment); returns None.  Errors propagate.

    Reading the prelude is the slow part, so the forms read from :data:`PRELUDE`
    are kept in the module-level ``_cache`` dict (key: the source text) and reused
    by later calls; the prelude never mutates its own code, so sharing is safe.
    """
    forms = _cache.get(PRELUDE)
    if forms is None:
        forms = _cache[PRELUDE] = read_all(PRELUDE)
    for form in forms:
        evaluate(form, env)
