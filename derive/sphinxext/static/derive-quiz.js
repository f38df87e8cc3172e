/* derive quizzes: a click on a choice says right or wrong. A wrong first choice asks for a second
   try; the explanation opens after a right choice or after the second try. No framework, no network. The choices are <button>s (keyboard: Tab, Enter/Space);
   the verdict is written to the quiz's aria-live line. */
(function () {
  "use strict";
  function setUp(quiz) {
    var answer = quiz.getAttribute("data-answer");
    var feedback = quiz.querySelector(".derive-quiz-feedback");
    var fold = quiz.querySelector("details.derive-fold");
    var buttons = quiz.querySelectorAll("button.derive-quiz-choice");
    var tries = 0;
    // the lines in the page's language (data-say-* of the quiz, written by the build); English without them
    function say(key, english, letter) {
      var text = quiz.getAttribute("data-say-" + key) || english;
      return text.split("{letter}").join(letter).split("{answer}").join(answer);
    }
    Array.prototype.forEach.call(buttons, function (button) {
      button.addEventListener("click", function () {
        var letter = button.getAttribute("data-choice");
        var right = letter === answer;
        tries += 1;
        var settled = right || tries >= 2;
        Array.prototype.forEach.call(buttons, function (other) {
          other.setAttribute("aria-pressed", other === button ? "true" : "false");
          other.parentNode.classList.remove("derive-quiz-right", "derive-quiz-wrong", "derive-quiz-chosen");
        });
        var item = button.parentNode;
        item.classList.add("derive-quiz-chosen", right ? "derive-quiz-right" : "derive-quiz-wrong");
        Array.prototype.forEach.call(quiz.querySelectorAll(".derive-quiz-why"), function (why) {
          why.classList.toggle("derive-quiz-shown", settled && why.parentNode === item);
        });
        if (!right && !settled) {
          button.disabled = true;
        }
        if (feedback) {
          feedback.textContent = right
            ? say("right", "Right: ({letter}) is the answer.", letter)
            : settled
              ? say("last", "Not quite: ({letter}) is not the answer either. The answer is ({answer}).", letter)
              : say("wrong", "Not quite: ({letter}) is not the answer. Try once more.", letter);
          feedback.className = "derive-quiz-feedback " + (right ? "derive-quiz-right" : "derive-quiz-wrong");
        }
        if (fold && settled) { fold.open = true; }
      });
    });
    quiz.classList.add("derive-quiz-ready");
  }
  function start() {
    Array.prototype.forEach.call(document.querySelectorAll(".derive-quiz[data-answer]"), setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
