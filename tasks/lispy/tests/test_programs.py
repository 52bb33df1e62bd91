"""End to end: whole programs through lispy.run (every layer at once)."""

import pytest

from lispy.interpreter import run

PROGRAMS = {
    "fibonacci": (
        """
        (define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
        (map fib (iota 10))
        """,
        "(0 1 1 2 3 5 8 13 21 34)\n",
    ),
    "tail_recursive_factorial": (
        """
        (define (fact n) (let loop ((n n) (acc 1)) (if (= n 0) acc (loop (- n 1) (* acc n)))))
        (fact 25)
        """,
        "15511210043330985984000000\n",
    ),
    "bank_account_closure": (
        """
        (define (make-account balance)
          (define (withdraw amount)
            (if (> amount balance)
                (error "insufficient funds:" amount)
                (begin (set! balance (- balance amount)) balance)))
          (define (deposit amount) (set! balance (+ balance amount)) balance)
          (lambda (op . args)
            (case op
              ((withdraw) (apply withdraw args))
              ((deposit) (apply deposit args))
              ((balance) balance)
              (else (error "unknown operation" op)))))
        (define acc (make-account 100))
        (acc 'withdraw 30)
        (acc 'deposit 5)
        (acc 'withdraw 500)
        (acc 'balance)
        (acc 'close)
        """,
        "70\n75\nerror: insufficient funds: 500\n75\nerror: unknown operation close\n",
    ),
    "quicksort": (
        """
        (define (quicksort lst)
          (if (null? lst)
              '()
              (let ((p (car lst)) (rest (cdr lst)))
                (append (quicksort (filter (lambda (x) (< x p)) rest))
                        (list p)
                        (quicksort (filter (lambda (x) (>= x p)) rest))))))
        (quicksort '(3 1 4 1 5 9 2 6 5 3 5))
        """,
        "(1 1 2 3 3 4 5 5 5 6 9)\n",
    ),
    "string_building": (
        """
        (define (greet names)
          (for-each (lambda (n) (display (format "Hello, ~a!~%" n))) names))
        (greet '("Ada" "Alan"))
        (string-join (map symbol->string '(a b c)) "-")
        """,
        "Hello, Ada!\nHello, Alan!\n\"a-b-c\"\n",
    ),
    "association_list_word_count": (
        """
        (define (count-words words)
          (fold-left (lambda (counts w)
                       (let ((entry (assoc w counts)))
                         (if entry
                             (begin (set-cdr! entry (+ (cdr entry) 1)) counts)
                             (cons (cons w 1) counts))))
                     '()
                     words))
        (sort (count-words (string-split "the cat and the hat and the bat"))
              (lambda (a b) (or (> (cdr a) (cdr b))
                                (and (= (cdr a) (cdr b)) (string<? (car a) (car b))))))
        """,
        '(("the" . 3) ("and" . 2) ("bat" . 1) ("cat" . 1) ("hat" . 1))\n',
    ),
    "macro_defined_control_flow": (
        """
        (define-syntax my-unless
          (syntax-rules () ((_ c body ...) (if c #f (begin body ...)))))
        (define-macro (repeat n . body)
          (let ((i (gensym)))
            `(do ((,i 0 (+ ,i 1))) ((= ,i ,n)) ,@body)))
        (repeat 3 (display "*"))
        (newline)
        (my-unless (> 1 2) 'ran)
        """,
        "***\nran\n",
    ),
    "error_recovery": (
        """
        (define (safe thunk)
          (guard (e ((error-object? e) (string-append "caught: " (error-object-message e)))
                    (else (list 'raised e)))
            (thunk)))
        (safe (lambda () (/ 1 0)))
        (safe (lambda () (raise 'custom)))
        (safe (lambda () (vector 1 2)))
        (safe (lambda () 'fine))
        """,
        '"caught: /: division by zero"\n(raised custom)\n"caught: unbound variable: vector"\nfine\n',
    ),
    "quasiquote_code_generation": (
        """
        (define (make-adder-code n) `(lambda (x) (+ x ,n)))
        (define add5 (eval (make-adder-code 5)))
        (add5 10)
        (make-adder-code 5)
        """,
        "15\n(lambda (x) (+ x 5))\n",
    ),
    "mutual_recursion_deep": (
        """
        (define (my-even? n) (if (= n 0) #t (my-odd? (- n 1))))
        (define (my-odd? n) (if (= n 0) #f (my-even? (- n 1))))
        (list (my-even? 1000) (my-odd? 1001) (my-even? 7))
        """,
        "(#t #t #f)\n",
    ),
    "streams_with_promises": (
        """
        (define-macro (cons-stream a b) `(cons ,a (delay ,b)))
        (define (stream-cdr s) (force (cdr s)))
        (define (integers-from n) (cons-stream n (integers-from (+ n 1))))
        (define (stream-take s n) (if (= n 0) '() (cons (car s) (stream-take (stream-cdr s) (- n 1)))))
        (stream-take (integers-from 10) 5)
        """,
        "(10 11 12 13 14)\n",
    ),
    "higher_order_pipeline": (
        """
        (define (square x) (* x x))
        (reduce + 0 (map square (filter odd? (range 1 10))))
        ((compose length delete-duplicates) '(a b a c b))
        (apply max (map (lambda (p) (* (car p) (cdr p))) '((1 . 2) (3 . 4) (2 . 2))))
        """,
        "165\n3\n12\n",
    ),
}


class TestPrograms:
    @pytest.mark.parametrize("name", sorted(PROGRAMS))
    def test_program(self, name):
        source, expected = PROGRAMS[name]
        assert run(source) == expected
