// Package account holds the rules of user accounts that do not need I/O:
// validation of usernames, passwords, display names and e-mail addresses
// (each failure names its field), password hashing with bcrypt, and random
// password and token generation.
package account
