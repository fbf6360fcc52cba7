// Greeting service “v2”: say hello to users.
const greeting = "Hello";

function greet(name) {
  console.log(greeting + ", " + name + "!");
  return true;
}

function farewell(name) {
  console.log("Goodbye, " + name + "!");   
  return true;
}
